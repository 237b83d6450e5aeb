/// <reference lib="dom" />
import type uPlot from "uplot";
import type { InstanceDetailView } from "../server/dashboard-views.js";
import { ApiError, followStream, getJson, postJson } from "./api.js";
import { lineChart } from "./charts.js";
import { el, formatDuration, formatGiB, formatNumber, replaceChildren, table } from "./dom.js";
import { header, notice } from "./layout.js";
import { liveness } from "./liveness.js";

type InstanceDetail = InstanceDetailView;

const asArray = (v: unknown): Record<string, unknown>[] =>
  Array.isArray(v) ? (v as Record<string, unknown>[]) : [];
const asNumber = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);
const asText = (v: unknown): string => (v === null || v === undefined ? "–" : String(v));

/** The daemon's /status as the agent forwarded it: memory vs budget, pipelines, GPU workers. */
function daemonSection(detail: InstanceDetail): Node[] {
  const readError =
    detail.daemonStatusError === undefined || detail.daemonStatusError === null
      ? null
      : el("p", { class: "error", id: "daemon-error" }, `last read failed: ${detail.daemonStatusError}`);
  if (detail.daemonStatus === null)
    return [
      el("p", { class: "muted" }, "The agent has not forwarded the daemon's /status."),
      ...(readError === null ? [] : [readError]),
    ];
  const s = detail.daemonStatus.status;
  const memory = (s.memory ?? {}) as Record<string, unknown>;
  const used = asNumber(memory.usedBytes);
  const total = asNumber(memory.totalBytes);
  const fill = el("div", { class: "fill" });
  if (used !== null && total !== null && total > 0)
    fill.style.width = `${Math.min(100, (used / total) * 100).toFixed(1)}%`;
  return [
    el("p", { class: "muted" }, `received ${formatDuration(detail.now - detail.daemonStatus.at)} ago`),
    ...(readError === null ? [] : [readError]),
    el(
      "div",
      { class: "phase", id: "memory" },
      el("div", { class: "bar" }, fill),
      el("span", {}, `memory ${formatGiB(used)} of ${formatGiB(total)} budget`),
    ),
    el("h3", {}, "Pipelines"),
    table(
      ["Job", "Kind", "Partitions done", "States"],
      asArray(s.pipelines).map((p) =>
        el(
          "tr",
          {},
          el("td", {}, asText(p.jobId)),
          el("td", {}, asText(p.proofKind)),
          el("td", { class: "num" }, `${asText(p.partitionsDone)} / ${asText(p.totalPartitions)}`),
          el(
            "td",
            { class: "muted" },
            asArray(p.partitions)
              .map((x) => asText(x.state))
              .join(" "),
          ),
        ),
      ),
      { id: "pipelines-table" },
    ),
    el("h3", {}, "GPU workers"),
    table(
      ["Worker", "GPU", "State", "Job", "Partition"],
      asArray(s.gpuWorkers).map((w) =>
        el(
          "tr",
          {},
          el("td", {}, asText(w.workerId)),
          el("td", {}, asText(w.gpuOrdinal)),
          el("td", {}, asText(w.state)),
          el("td", {}, asText(w.currentJob)),
          el("td", {}, asText(w.currentPartition)),
        ),
      ),
      { id: "workers-table" },
    ),
  ];
}

/** The log tail as the API serves it. */
interface LogTailAnswer {
  instanceId: string;
  lines: { stream: string; at: number; receivedAt: number; text: string }[];
}

/** The log tail: the failure it explains (when there is one) above the lines, each as text. */
function logSection(detail: InstanceDetail, logs: LogTailAnswer): (Node | null)[] {
  const i = detail.instance;
  const failed = i.reason !== null && ["failed", "destroying", "destroyed"].includes(i.state);
  const failure = failed ? el("p", { class: "error", id: "log-failure" }, i.reason) : null;
  if (logs.lines.length === 0) {
    return [
      failure,
      el(
        "p",
        { class: "muted", id: "log-empty" },
        "No log lines yet: the agent ships them on a failure, at each phase, and when asked.",
      ),
    ];
  }
  const lines = logs.lines.map((line) =>
    el(
      "li",
      { "data-stream": line.stream },
      el("span", { class: "log-meta" }, `${new Date(line.at).toISOString().slice(11, 19)} ${line.stream} `),
      line.text,
    ),
  );
  return [failure, el("ol", { class: "log-tail", id: "log-tail" }, ...lines)];
}

/** One instance: its phases, its benchmark's per-proof latencies, the daemon's /status. */
// shape-exception: the page's panels share its state and event stream
export function instancePage(root: HTMLElement, instanceId: string): void {
  const status = notice();
  const live = liveness();
  const title = el("h2", { id: "instance-title" });
  const facts = el("section", { id: "facts" });
  const logs = el("section", { id: "logs" });
  const askLogs = el("button", { class: "action", id: "ask-logs", type: "button" }, "Ask for logs");
  const phases = el("section", { id: "phases" });
  const chartHost = el("div", { id: "latency-chart", class: "chart" });
  const proofs = el("section", { id: "proofs" });
  const daemon = el("section", { id: "daemon" });
  root.append(
    header(document.title, status.element, live.element),
    title,
    facts,
    el("h2", {}, "Log tail ", askLogs),
    logs,
    el("h2", {}, "Phases"),
    phases,
    el("h2", {}, "Benchmark: proof latency"),
    chartHost,
    proofs,
    el("h2", {}, "Daemon /status"),
    daemon,
  );
  askLogs.addEventListener("click", () => {
    postJson(`/api/instances/${encodeURIComponent(instanceId)}/logs/request`).then(
      () => status.show("asked: the agent ships its log tail with its next heartbeat", "ok"),
      (error: unknown) =>
        status.show(error instanceof ApiError ? error.message : "the manager did not answer", "error"),
    );
  });
  let chart: uPlot | undefined;
  const refresh = async () => {
    try {
      const path = `/api/instances/${encodeURIComponent(instanceId)}`;
      const [d, tail] = await Promise.all([
        getJson<InstanceDetail>(path),
        getJson<LogTailAnswer>(`${path}/logs`),
      ]);
      replaceChildren(logs, ...logSection(d, tail));
      // The agent's own page shows what it shipped; asking is the manager's.
      askLogs.hidden = d.local === true;
      const i = d.instance;
      replaceChildren(title, i.label);
      replaceChildren(
        facts,
        el("span", { class: `badge ${i.state}`, id: "instance-state" }, i.state),
        d.local ? null : el("span", { class: "stat" }, `${i.numGpus}× ${i.gpuName}`),
        el(
          "span",
          { class: "stat", id: "instance-rate" },
          `${formatNumber(i.proofsPerHour)} proofs/h${i.rateBasis ? ` (${i.rateBasis})` : ""}`,
        ),
        i.claimedProofsPerHour === null || i.claimedProofsPerHour === undefined
          ? null
          : el(
              "span",
              { class: "muted", id: "instance-evidence" },
              `claimed ${formatNumber(i.claimedProofsPerHour)}, records ${formatNumber(i.benchmarkProofsPerHour ?? null)}, model ${formatNumber(i.modelProofsPerHour ?? null)}, production ${formatNumber(i.productionProofsPerHour ?? null)} proofs/h`,
            ),
        d.local ? null : el("span", { class: "stat" }, `$${formatNumber(i.dphPerHour, 3)}/h`),
        d.local
          ? null
          : el("span", { class: "stat" }, `$${formatNumber(i.dollarsPer1000Proofs, 2)} per 1000 proofs`),
        i.reason === null ? null : el("span", { class: "muted" }, i.reason),
      );
      const rows = d.phases.map((p, n) => {
        const next = d.phases[n + 1]?.at ?? d.now;
        return el(
          "tr",
          {},
          el("td", {}, p.state),
          el("td", {}, new Date(p.at).toISOString().slice(0, 19)),
          el("td", { class: "num" }, formatDuration(next - p.at)),
          el("td", { class: "muted" }, p.type),
        );
      });
      replaceChildren(phases, table(["Phase", "Entered", "Lasted", "Event"], rows, { id: "phases-table" }));
      const timed = d.benchmark?.proofs.filter((p) => p.wallMs !== null) ?? [];
      if (d.benchmark !== null && timed.length > 0) {
        chart = lineChart(
          chartHost,
          chart,
          timed.map((p, n) => p.index ?? n),
          [{ label: "latency (s)", values: timed.map((p) => (p.wallMs as number) / 1000) }],
          { yLabel: "seconds per proof", time: false },
        );
        const failed = d.benchmark.proofs.filter((p) => !p.ok).length;
        replaceChildren(
          proofs,
          el(
            "p",
            {},
            `${d.benchmark.verdict}: ${formatNumber(d.benchmark.proofsPerHour)} proofs/h (minimum ${formatNumber(d.benchmark.minProofsPerHour)}), ${d.benchmark.proofs.length} proofs, ${failed} failed`,
          ),
        );
      } else {
        replaceChildren(chartHost, el("p", { class: "muted" }, "No benchmark yet."));
      }
      replaceChildren(daemon, ...daemonSection(d));
    } catch (error) {
      status.show(error instanceof ApiError ? error.message : "the manager did not answer", "error");
    }
  };
  void refresh();
  followStream(
    (type, data) => {
      live.heard(type, data);
      if (type === "change" || type === "tick") void refresh();
    },
    (connected) => live.connected(connected),
  );
}

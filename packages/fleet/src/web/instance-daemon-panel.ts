/// <reference lib="dom" />
import type { InstanceDetailView } from "../server/dashboard-views.js";
import { el, formatDuration, formatGiB, table } from "./dom.js";

// The instance page's daemon panel: the daemon's /status as the agent forwarded it.

type InstanceDetail = InstanceDetailView;

const asArray = (v: unknown): Record<string, unknown>[] =>
  Array.isArray(v) ? (v as Record<string, unknown>[]) : [];
const asNumber = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);
const asText = (v: unknown): string => (v === null || v === undefined ? "–" : String(v));

/** The daemon's /status as the agent forwarded it: memory vs budget, pipelines, GPU workers. */
export function daemonSection(detail: InstanceDetail): Node[] {
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

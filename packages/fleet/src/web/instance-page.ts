/// <reference lib="dom" />
import type { InstanceDetailView } from "../server/dashboard-views.js";
import { ApiError, followStream, getJson, postJson } from "./api.js";
import { el, replaceChildren } from "./dom.js";
import { daemonSection } from "./instance-daemon-panel.js";
import { type LogTailAnswer, logSection } from "./instance-log-panel.js";
import { type BenchmarkPanel, renderBenchmark, renderFacts, renderPhases } from "./instance-panels.js";
import { header, notice } from "./layout.js";
import { liveness } from "./liveness.js";

// One instance's page: a layout of panels (facts, log tail, phases, benchmark, daemon), each
// rendered by its own function from the refresh's two reads; refreshed by the live stream.

/** The page's panels and its status notice. */
interface InstancePageState {
  instanceId: string;
  status: ReturnType<typeof notice>;
  title: HTMLElement;
  facts: HTMLElement;
  logs: HTMLElement;
  askLogs: HTMLButtonElement;
  phases: HTMLElement;
  benchmark: BenchmarkPanel;
  daemon: HTMLElement;
}

/** Reads the instance and its log tail, and renders every panel from them. */
async function refreshInstance(page: InstancePageState): Promise<void> {
  try {
    const path = `/api/instances/${encodeURIComponent(page.instanceId)}`;
    const [d, tail] = await Promise.all([
      getJson<InstanceDetailView>(path),
      getJson<LogTailAnswer>(`${path}/logs`),
    ]);
    replaceChildren(page.logs, ...logSection(d, tail));
    // The agent's own page shows what it shipped; asking is the manager's.
    page.askLogs.hidden = d.local === true;
    replaceChildren(page.title, d.instance.label);
    renderFacts(page.facts, d);
    renderPhases(page.phases, d);
    renderBenchmark(page.benchmark, d);
    replaceChildren(page.daemon, ...daemonSection(d));
  } catch (error) {
    page.status.show(error instanceof ApiError ? error.message : "the manager did not answer", "error");
  }
}

/** The "Ask for logs" button: the agent ships its tail with its next heartbeat. */
function askLogsButton(instanceId: string, status: ReturnType<typeof notice>): HTMLButtonElement {
  const askLogs = el("button", { class: "action", id: "ask-logs", type: "button" }, "Ask for logs");
  askLogs.addEventListener("click", () => {
    postJson(`/api/instances/${encodeURIComponent(instanceId)}/logs/request`).then(
      () => status.show("asked: the agent ships its log tail with its next heartbeat", "ok"),
      (error: unknown) =>
        status.show(error instanceof ApiError ? error.message : "the manager did not answer", "error"),
    );
  });
  return askLogs;
}

/** One instance: its phases, its benchmark's per-proof latencies, the daemon's /status. */
export function instancePage(root: HTMLElement, instanceId: string): void {
  const status = notice();
  const live = liveness();
  const page: InstancePageState = {
    instanceId,
    status,
    title: el("h2", { id: "instance-title" }),
    facts: el("section", { id: "facts" }),
    logs: el("section", { id: "logs" }),
    askLogs: askLogsButton(instanceId, status),
    phases: el("section", { id: "phases" }),
    benchmark: {
      chartHost: el("div", { id: "latency-chart", class: "chart" }),
      proofs: el("section", { id: "proofs" }),
      chart: undefined,
    },
    daemon: el("section", { id: "daemon" }),
  };
  root.append(
    header(document.title, status.element, live.element),
    page.title,
    page.facts,
    el("h2", {}, "Log tail ", page.askLogs),
    page.logs,
    el("h2", {}, "Phases"),
    page.phases,
    el("h2", {}, "Benchmark: proof latency"),
    page.benchmark.chartHost,
    page.benchmark.proofs,
    el("h2", {}, "Daemon /status"),
    page.daemon,
  );
  void refreshInstance(page);
  followStream(
    (type, data) => {
      live.heard(type, data);
      if (type === "change" || type === "tick") void refreshInstance(page);
    },
    (connected) => live.connected(connected),
  );
}

/// <reference lib="dom" />
import type { InstanceDetailView } from "../server/dashboard-views.js";
import { el } from "./dom.js";

// The instance page's log tail panel: the lines the agent shipped, beside the failure they explain.

type InstanceDetail = InstanceDetailView;

/** The log tail as the API serves it. */
export interface LogTailAnswer {
  instanceId: string;
  lines: { stream: string; at: number; receivedAt: number; text: string }[];
}

/** The log tail: the failure it explains (when there is one) above the lines, each as text. */
export function logSection(detail: InstanceDetail, logs: LogTailAnswer): (Node | null)[] {
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

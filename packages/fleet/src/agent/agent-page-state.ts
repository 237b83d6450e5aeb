import type { Clock } from "@cuzkit/core";
import type { BenchmarkDetailView, ForwardedStatusView, PhaseView } from "../server/dashboard-views.js";

// What the local agent page shows, shared by its routes and by the reporter it wraps.

/** The machine as the page shows it. */
export interface LocalState {
  state: string;
  reason: string | null;
  phaseStartedAt: number;
  lastHeartbeatAt: number | null;
  proofsPerHour: number | null;
  phases: PhaseView[];
  benchmark: BenchmarkDetailView | null;
  daemonStatus: ForwardedStatusView | null;
}

/** One shipped log line as the page keeps it. */
export interface LocalLogLine {
  stream: string;
  at: number;
  receivedAt: number;
  text: string;
}

/** The page's state and what changes it: one per startAgentPage. */
export interface AgentPageContext {
  clock: Clock;
  view: LocalState;
  /** The lines the agent shipped (redacted on the way), the newest as the manager keeps them. */
  logLines: LocalLogLine[];
  /** Open event streams, told on each change. */
  listeners: Set<() => void>;
  /** The floor the manager's register answer set; 0 until then. */
  minProofsPerHour: number;
}

/** A fresh page context: the machine "starting" now. */
export function createAgentPageContext(clock: Clock): AgentPageContext {
  return {
    clock,
    view: {
      state: "starting",
      reason: null,
      phaseStartedAt: clock.now(),
      lastHeartbeatAt: null,
      proofsPerHour: null,
      phases: [{ state: "starting", at: clock.now(), type: "agent-started" }],
      benchmark: null,
      daemonStatus: null,
    },
    logLines: [],
    listeners: new Set(),
    minProofsPerHour: 0,
  };
}

/** Tells every open stream that something changed. */
export function notifyListeners(context: AgentPageContext): void {
  for (const listener of context.listeners) listener();
}

/** Moves the machine to `next` (a new phase row) and tells the streams. */
export function enterPhase(context: AgentPageContext, next: string, type: string, reason?: string): void {
  const at = context.clock.now();
  const { view } = context;
  view.state = next;
  view.phaseStartedAt = at;
  if (reason !== undefined) view.reason = reason;
  view.phases.push({ state: next, at, type });
  notifyListeners(context);
}

/** The daemon's /status without its raw text, as the page shows it. */
export const withoutRaw = (status: Record<string, unknown>) => {
  const { raw: _raw, ...rest } = status;
  return rest;
};

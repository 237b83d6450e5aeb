import type { CuzkClient, DaemonMetrics, DaemonStatus, DaemonStatusJson } from "@cuzkit/client";
import {
  ConnectionLostError,
  DaemonFrozenError,
  DaemonUnavailableError,
  DeadlineExceededError,
  fetchStatusJson,
  LocalTransportError,
} from "@cuzkit/client";
import { type Clock, CuzkitError, monotonicClock, realSleep, type Sleep, systemClock } from "@cuzkit/core";
import { type Paint, painted, terminalSafe } from "../colour.js";
import type { CliIO } from "../io.js";
import { durationText } from "../parse.js";
import { defaultWatchIntervalMs } from "./status.js";
import { formatStatus, uptimeText } from "./status-format.js";

/** The shortest deadline of one GetStatus while watching, ms (a frozen daemon shows within it). */
export const minWatchCallTimeoutMs = 1_000;

/** One refresh: what GetStatus, GetMetrics and /status answered, or how they failed. */
export interface WatchSample {
  /** When it was taken, on the watch's clock (monotonic ms by default): only differences count. */
  at: number;
  /** Wall-clock time of the sample (Date.now ms), only for the time shown; default: `at`. */
  wallAt?: number | undefined;
  status?: DaemonStatus | undefined;
  metrics?: DaemonMetrics | undefined;
  /** The gRPC calls' failure. */
  error?: unknown;
  /** The HTTP /status answer (undefined when not asked for or when it failed). */
  json?: DaemonStatusJson | undefined;
  /** Its failure. */
  jsonError?: unknown;
}

/** What the daemon is doing, as the watch says it. */
export type DaemonCondition =
  | "up"
  /** Answers, but its uptime went back: a new process (crashed or restarted). */
  | "restarted"
  /** Accepts connections, answers nothing. */
  | "frozen"
  /** Nothing listens there: the process is gone. */
  | "down"
  /** Between here and the daemon: a reset, an unreachable host, this side's own transport. */
  | "network"
  | "error";

const nodeCodesOf = (error: unknown): string[] => {
  const codes: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current instanceof Error && depth < 8; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string") codes.push(code);
    current = (current as { cause?: unknown }).cause;
  }
  return codes;
};

/** The condition a sample shows, given the last sample that answered (a restart is told by it). Pure. */
export function daemonCondition(previous: WatchSample | undefined, sample: WatchSample): DaemonCondition {
  if (sample.error === undefined && sample.status !== undefined) {
    const before = previous?.status;
    if (before === undefined) return "up";
    // A new process starts its counters at zero: fewer proofs than before is a restart at any uptime.
    const now = sample.status;
    if (
      now.totalProofsCompleted < before.totalProofsCompleted ||
      now.totalProofsFailed < before.totalProofsFailed
    )
      return "restarted";
    // Whole seconds, read inside a round trip: allow the same 2 s slack the client's recovery does.
    const expected = before.uptimeSeconds + (sample.at - (previous?.at ?? sample.at)) / 1000;
    return sample.status.uptimeSeconds + 2 < expected ? "restarted" : "up";
  }
  const error = sample.error;
  if (error instanceof DaemonFrozenError || error instanceof DeadlineExceededError) return "frozen";
  if (error instanceof DaemonUnavailableError) {
    const codes = nodeCodesOf(error);
    return codes.includes("ECONNREFUSED") || codes.includes("ENOENT") ? "down" : "network";
  }
  if (error instanceof ConnectionLostError || error instanceof LocalTransportError) return "network";
  return "error";
}

const conditionPaint: Record<DaemonCondition, Paint> = {
  up: "green",
  restarted: "yellow",
  frozen: "red",
  down: "red",
  network: "red",
  error: "red",
};

const messageOf = (error: unknown) =>
  terminalSafe(error instanceof Error ? error.message : String(error)).slice(0, 300);

/** The sentence under the condition word. */
function explain(condition: DaemonCondition, sample: WatchSample, previous: WatchSample | undefined): string {
  switch (condition) {
    case "up":
      return "answering";
    case "restarted":
      return `a new process: uptime went back from ${uptimeText(previous?.status?.uptimeSeconds ?? 0)} to ${uptimeText(sample.status?.uptimeSeconds ?? 0)}, proofs completed from ${previous?.status?.totalProofsCompleted ?? 0} to ${sample.status?.totalProofsCompleted ?? 0} (it crashed or was restarted; proofs in flight were lost)`;
    case "frozen":
      return `it accepts the connection but does not answer (hung, stopped with SIGSTOP, or out of memory and swapping): ${messageOf(sample.error)}`;
    case "down":
      return `nothing listens there: the daemon crashed, was OOM-killed or stopped, or has not started: ${messageOf(sample.error)}`;
    case "network":
      return `the connection to the daemon fails between here and there (the daemon itself may be fine): ${messageOf(sample.error)}`;
    case "error":
      return `${CuzkitError.is(sample.error) ? `${sample.error.code}: ` : ""}${messageOf(sample.error)}`;
  }
}

/** Strings the daemon sent, made terminal-safe through and through (GPU names, job ids, states). */
function safeDeep<T>(value: T): T {
  if (typeof value === "string") return terminalSafe(value) as T;
  if (Array.isArray(value)) return value.map(safeDeep) as T;
  if (value !== null && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, safeDeep(v)])) as T;
  }
  return value;
}

/** Inputs of one frame. */
export interface WatchFrameInput {
  address: string;
  sample: WatchSample;
  /** The last earlier sample that answered: a restart is told by it, and it is shown while the daemon does not answer. */
  lastAnswered?: WatchSample | undefined;
  intervalMs: number;
  colour: boolean;
}

/** One frame of `cuzkit status --watch`, as text (no cursor codes: the caller adds them on a terminal). Pure. */
export function renderWatchFrame(input: WatchFrameInput): string {
  const { sample, lastAnswered: previous, colour } = input;
  const condition = daemonCondition(previous, sample);
  const time = new Date(sample.wallAt ?? sample.at).toISOString().slice(11, 19);
  const lines = [
    `cuzkit status --watch: ${input.address}, every ${durationText(input.intervalMs)}, ${time} UTC (Ctrl-C stops)`,
    `daemon ${painted(condition.toUpperCase(), conditionPaint[condition], colour)}: ${explain(condition, sample, previous)}`,
  ];
  if (sample.status !== undefined && sample.metrics !== undefined) {
    lines.push(
      formatStatus(
        input.address,
        safeDeep(sample.status),
        safeDeep(sample.metrics),
        safeDeep(sample.json),
        colour,
      ).trimEnd(),
    );
  } else if (previous?.status !== undefined) {
    const last = previous;
    lines.push(
      `last answer ${uptimeText((sample.at - last.at) / 1000)} ago: up ${uptimeText(last.status?.uptimeSeconds ?? 0)}, ${last.status?.totalProofsCompleted ?? 0} proofs completed, ${last.status?.totalProofsFailed ?? 0} failed`,
    );
  }
  if (sample.jsonError !== undefined) lines.push(`/status: ${messageOf(sample.jsonError)}`);
  return `${lines.join("\n")}\n`;
}

/** Options of watchStatus. */
export interface WatchOptions {
  client: CuzkClient;
  /** The daemon's HTTP /status URL. Default: none (gRPC only). */
  statusUrl?: string | undefined;
  io: CliIO;
  /** Between refreshes, ms. Default defaultWatchIntervalMs. */
  intervalMs?: number | undefined;
  colour: boolean;
  /** Ends the watch (SIGINT). Required. */
  signal: AbortSignal;
  /** Called with each frame after it is written (tests wait for frames). Default: none. */
  onFrame?: ((frame: string, condition: DaemonCondition) => void) | undefined;
  /** Clock for comparing samples (uptime against time passed). Default: monotonic, so a stepped system clock is never read as a restart. */
  clock?: Clock | undefined;
  /** Clock for the time of day shown in each frame. Default: the system clock. */
  wallClock?: Clock | undefined;
  /** Sleep between refreshes. Default: a real timer. */
  sleep?: Sleep | undefined;
}

// Home the cursor, clear the screen below: a terminal shows one frame in place.
const clearScreen = "\u001b[H\u001b[2J";

/** Takes one sample: GetStatus and GetMetrics over gRPC, /status over HTTP, each under a deadline. */
async function takeSample(
  options: WatchOptions,
  callTimeoutMs: number,
  now: number,
  wallNow: number,
): Promise<WatchSample> {
  const call = { signal: options.signal, timeoutMs: callTimeoutMs };
  const [grpc, json] = await Promise.allSettled([
    Promise.all([options.client.getStatus(call), options.client.getMetrics(call)]),
    options.statusUrl === undefined ? Promise.resolve(undefined) : fetchStatusJson(options.statusUrl, call),
  ]);
  return {
    at: now,
    wallAt: wallNow,
    ...(grpc.status === "fulfilled"
      ? { status: grpc.value[0], metrics: grpc.value[1] }
      : { error: grpc.reason as unknown }),
    ...(json.status === "fulfilled" ? { json: json.value } : { jsonError: json.reason as unknown }),
  };
}

/**
 * Refreshes the view every interval until the signal aborts: on a terminal each frame replaces
 * the last; elsewhere (a pipe, a file) frames follow each other, with no cursor codes.
 */
export async function watchStatus(options: WatchOptions): Promise<void> {
  const intervalMs = options.intervalMs ?? defaultWatchIntervalMs;
  const clock = options.clock ?? monotonicClock;
  const wallClock = options.wallClock ?? systemClock;
  const sleep = options.sleep ?? realSleep;
  const callTimeoutMs = Math.max(minWatchCallTimeoutMs, intervalMs);
  const tty = options.io.stdout.isTTY === true;
  let lastAnswered: WatchSample | undefined;
  while (!options.signal.aborted) {
    const sample = await takeSample(options, callTimeoutMs, clock.now(), wallClock.now());
    if (options.signal.aborted) break;
    const frame = renderWatchFrame({
      address: options.client.address,
      sample,
      lastAnswered,
      intervalMs,
      colour: options.colour,
    });
    options.io.stdout.write(tty ? `${clearScreen}${frame}` : `${frame}\n`);
    options.onFrame?.(frame, daemonCondition(lastAnswered, sample));
    if (sample.status !== undefined) lastAnswered = sample;
    await sleep(intervalMs, options.signal).catch(() => undefined);
  }
}

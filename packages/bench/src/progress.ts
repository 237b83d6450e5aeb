import type { Writable } from "node:stream";
import cliProgress from "cli-progress";
import type { BenchPhase } from "./status-file.js";

/** Counts at one moment of a run, passed with every event. */
export interface ProgressSnapshot {
  /** Timed proofs asked for. */
  total: number;
  /** Timed proofs completed. */
  done: number;
  /** Timed proofs failed. */
  failed: number;
  /** Proofs (warmup included) currently in flight. */
  inFlight: number;
  /** Timed proofs kept in flight. */
  concurrency: number;
  /** Completed timed proofs per hour so far. */
  ratePerHour: number;
  /** Estimated ms until the timed batch ends, when known. */
  etaMs: number | undefined;
  /** The current phase. */
  phase: BenchPhase;
  /** Time in the current phase, in ms. */
  phaseElapsedMs: number;
}

/** What a benchmark run reports as it goes. */
export type BenchmarkEvent =
  | {
      type: "phase";
      phase: BenchPhase;
      message: string;
      /** The model's ETA of the phase in ms, when known. */
      etaMs?: number | undefined;
      /** The phase's deadline in ms, when it has one. */
      deadlineMs?: number | undefined;
      /** The phase that ended, and how long it took. */
      previous?: { phase: BenchPhase; elapsedMs: number } | undefined;
    }
  | {
      type: "heartbeat";
      phase: BenchPhase;
      elapsedMs: number;
      etaMs?: number | undefined;
      deadlineMs?: number | undefined;
    }
  | { type: "proof-started"; index: number; warmup: boolean }
  | { type: "proof-completed"; index: number; warmup: boolean; wallMs: number }
  | { type: "proof-failed"; index: number; warmup: boolean; code: string; message: string }
  | { type: "recovery"; index: number; step: string; message: string }
  | { type: "daemon-exit"; message: string }
  | { type: "note"; message: string };

/** Receives events and snapshots; returned by {@link createProgressOutput}. */
export interface ProgressOutput {
  update(event: BenchmarkEvent, snapshot: ProgressSnapshot): void;
  /** Stops a live bar and leaves the terminal clean. */
  finish(): void;
}

/** Options of the progress output. */
export interface ProgressOutputOptions {
  /** Real seconds per displayed second: durations are divided and rates multiplied by it (a simulator's time scale). Default 1. */
  timeScale?: number | undefined;
}

/** One plain line for an event, or undefined for events not worth a line. */
export function formatProgressLine(
  event: BenchmarkEvent,
  s: ProgressSnapshot,
  options: ProgressOutputOptions = {},
): string | undefined {
  const scale = options.timeScale ?? 1;
  const secondsText = (ms: number) => `${(ms / scale / 1000).toFixed(1)} s`;
  const counts = `[${s.done + s.failed}/${s.total}]`;
  const etaText = (etaMs: number | undefined, deadlineMs: number | undefined) =>
    [
      etaMs === undefined ? undefined : `modelled ETA ${secondsText(etaMs)}`,
      deadlineMs === undefined ? undefined : `deadline ${secondsText(deadlineMs)}`,
    ]
      .filter((x) => x !== undefined)
      .join(", ");
  switch (event.type) {
    case "phase": {
      const previous = event.previous
        ? `   (${event.previous.phase} took ${secondsText(event.previous.elapsedMs)})\n`
        : "";
      const eta = etaText(event.etaMs, event.deadlineMs);
      return `${previous}== ${event.message}${eta ? ` [${eta}]` : ""}`;
    }
    case "heartbeat": {
      const eta = etaText(event.etaMs, event.deadlineMs);
      const batch = event.phase === "timed" ? ` ${counts} ${s.inFlight} in flight,` : "";
      return `.. ${event.phase}: ${secondsText(event.elapsedMs)} elapsed,${batch}${eta ? ` ${eta}` : ""}`.replace(
        /,$/,
        "",
      );
    }
    case "note":
      return `note: ${event.message}`;
    case "proof-started":
      return undefined;
    case "proof-completed":
      return event.warmup
        ? `warmup proof completed in ${secondsText(event.wallMs)}`
        : `${counts} proof ${event.index} completed in ${secondsText(event.wallMs)} (${(s.ratePerHour * scale).toFixed(1)} proofs/hour so far, concurrency ${s.concurrency})`;
    case "proof-failed":
      if (event.code === "BENCHMARK_STOPPED")
        return `${counts} proof ${event.index} not completed: the benchmark stopped`;
      return event.warmup
        ? `warmup proof failed: ${event.code}: ${event.message}`
        : `${counts} proof ${event.index} FAILED: ${event.code}: ${event.message}`;
    case "recovery":
      return `   proof ${event.index}: ${event.step}: ${event.message}`;
    case "daemon-exit":
      return `!! daemon exited: ${event.message}`;
  }
}

/** One plain line per notable event (logs, CI, pipes). */
function plainProgressOutput(stream: Writable, options: ProgressOutputOptions): ProgressOutput {
  return {
    update(event, snapshot) {
      const line = formatProgressLine(event, snapshot, options);
      if (line !== undefined) stream.write(`${line}\n`);
    },
    finish() {},
  };
}

/** Before the bar: a live line with the phase's elapsed time, redrawn every second. */
function createLiveLine(stream: Writable, options: ProgressOutputOptions) {
  let live: NodeJS.Timeout | undefined;
  const stop = () => {
    if (live === undefined) return;
    clearInterval(live);
    live = undefined;
    stream.write("\r\x1b[2K");
  };
  const start = (event: Extract<BenchmarkEvent, { type: "phase" }>, snapshot: ProgressSnapshot) => {
    // Monotonic: the live line's elapsed time must not jump when the system clock is set.
    const began = performance.now() - snapshot.phaseElapsedMs;
    const draw = () => {
      const line = formatProgressLine(
        {
          type: "heartbeat",
          phase: event.phase,
          elapsedMs: performance.now() - began,
          etaMs: event.etaMs,
          deadlineMs: event.deadlineMs,
        },
        snapshot,
        options,
      );
      stream.write(`\r\x1b[2K${line ?? ""}`);
    };
    live = setInterval(draw, 1000);
    live.unref();
    draw();
  };
  return { start, stop };
}

/** Events printed above the bar (the rest only move it). */
function printsAboveBar(event: BenchmarkEvent): boolean {
  return (
    event.type === "phase" ||
    event.type === "daemon-exit" ||
    event.type === "note" ||
    (event.type === "proof-failed" && event.warmup)
  );
}

/**
 * A live progress bar (done/failed/in flight, rate, ETA) when `stream` is a terminal, and one
 * plain line per notable event otherwise (logs, CI, pipes).
 */
export function createProgressOutput(
  stream: Writable & { isTTY?: boolean },
  total: number,
  options: ProgressOutputOptions = {},
): ProgressOutput {
  const scale = options.timeScale ?? 1;
  if (!stream.isTTY) return plainProgressOutput(stream, options);
  const bar = new cliProgress.SingleBar(
    {
      stream: stream as NodeJS.WritableStream,
      format:
        " {bar} {value}/{total} done | {failed} failed | {inFlight} in flight | {rate} proofs/h | ETA {etaText}",
      hideCursor: true,
      clearOnComplete: false,
    },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  const live = createLiveLine(stream, options);
  return {
    update(event, snapshot) {
      if (event.type === "heartbeat") return;
      const payload = {
        failed: snapshot.failed,
        inFlight: snapshot.inFlight,
        rate: (snapshot.ratePerHour * scale).toFixed(1),
        etaText: snapshot.etaMs === undefined ? "-" : `${(snapshot.etaMs / scale / 1000).toFixed(1)} s`,
      };
      if (printsAboveBar(event)) {
        // Messages go above the bar: clear its line, print, and let the next update redraw it.
        live.stop();
        const line = formatProgressLine(event, snapshot, options);
        if (line) stream.write(`${started ? "\r\x1b[2K" : ""}${line}\n`);
        if (event.type === "phase" && event.phase !== "timed" && event.phase !== "done" && !started)
          live.start(event, snapshot);
      }
      if (event.type === "phase" && event.phase === "timed" && !started) {
        bar.start(total, 0, payload);
        started = true;
        return;
      }
      if (started) bar.update(snapshot.done + snapshot.failed, payload);
    },
    finish() {
      live.stop();
      if (started) bar.stop();
    },
  };
}

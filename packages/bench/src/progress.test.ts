import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import {
  type BenchmarkEvent,
  createProgressOutput,
  formatProgressLine,
  type ProgressSnapshot,
} from "./progress.js";

function sink(isTTY: boolean) {
  const chunks: string[] = [];
  const stream = Object.assign(
    new Writable({
      write(chunk, _encoding, done) {
        chunks.push(String(chunk));
        done();
      },
    }),
    { isTTY, columns: 120 },
  );
  return { stream, text: () => chunks.join("") };
}

const snapshot = (done: number, failed = 0): ProgressSnapshot => ({
  total: 4,
  done,
  failed,
  inFlight: 1,
  concurrency: 2,
  ratePerHour: 60,
  etaMs: 120_000,
  phase: "timed",
  phaseElapsedMs: 0,
});

const run: [BenchmarkEvent, ProgressSnapshot][] = [
  [{ type: "phase", phase: "timed", message: "timed batch: 4 proofs, 2 in flight" }, snapshot(0)],
  [{ type: "proof-started", index: 1, warmup: false }, snapshot(0)],
  [{ type: "proof-completed", index: 1, warmup: false, wallMs: 61_000 }, snapshot(1)],
  [{ type: "recovery", index: 2, step: "resumed", message: "re-attached to job x" }, snapshot(1)],
  [{ type: "proof-failed", index: 2, warmup: false, code: "PROOF_FAILED", message: "boom" }, snapshot(1, 1)],
  [{ type: "daemon-exit", message: "killed (exit 137)" }, snapshot(1, 1)],
];

describe("progress output", () => {
  it("writes one plain line per notable event when not a terminal", () => {
    const out = sink(false);
    const progress = createProgressOutput(out.stream, 4);
    for (const [event, counts] of run) progress.update(event, counts);
    progress.finish();
    expect(out.text().split("\n")).toEqual([
      "== timed batch: 4 proofs, 2 in flight",
      "[1/4] proof 1 completed in 61.0 s (60.0 proofs/hour so far, concurrency 2)",
      "   proof 2: resumed: re-attached to job x",
      "[2/4] proof 2 FAILED: PROOF_FAILED: boom",
      "!! daemon exited: killed (exit 137)",
      "",
    ]);
    expect(out.text()).not.toContain("\u001b[");
  });

  it("draws a live bar with done, failed, in flight, rate and ETA on a terminal", () => {
    const out = sink(true);
    const progress = createProgressOutput(out.stream, 4);
    for (const [event, counts] of run) progress.update(event, counts);
    progress.finish();
    const text = out.text();
    expect(text).toMatch(/2\/4 done \| 1 failed \| 1 in flight \| 60\.0 proofs\/h \| ETA 120\.0 s/);
    expect(text).toContain("!! daemon exited: killed (exit 137)");
  });

  it("prints each phase with the model's ETA and deadline, the time the last one took, and heartbeats", () => {
    const phase = formatProgressLine(
      {
        type: "phase",
        phase: "warmup",
        message: "warmup: 1 untimed proof(s)",
        etaMs: 400_000,
        deadlineMs: 1_200_000,
        previous: { phase: "waiting-for-daemon", elapsedMs: 2_500 },
      },
      { ...snapshot(0), phase: "warmup" },
    );
    expect(phase).toBe(
      "   (waiting-for-daemon took 2.5 s)\n== warmup: 1 untimed proof(s) [modelled ETA 400.0 s, deadline 1200.0 s]",
    );
    const beat = formatProgressLine(
      { type: "heartbeat", phase: "warmup", elapsedMs: 30_000, etaMs: 400_000, deadlineMs: 1_200_000 },
      { ...snapshot(0), phase: "warmup" },
    );
    expect(beat).toBe(".. warmup: 30.0 s elapsed, modelled ETA 400.0 s, deadline 1200.0 s");
    // A simulator's time scale shows machine time.
    const scaled = formatProgressLine(
      { type: "heartbeat", phase: "timed", elapsedMs: 300, etaMs: undefined, deadlineMs: undefined },
      snapshot(1),
      { timeScale: 0.01 },
    );
    expect(scaled).toBe(".. timed: 30.0 s elapsed, [1/4] 1 in flight");
  });

  it("shows a live line with the phase's elapsed time on a terminal before the batch", () => {
    const out = sink(true);
    const progress = createProgressOutput(out.stream, 4);
    progress.update(
      { type: "phase", phase: "warmup", message: "warmup: 1 untimed proof(s)", etaMs: 400_000 },
      { ...snapshot(0), phase: "warmup", phaseElapsedMs: 5_000 },
    );
    progress.finish();
    expect(out.text()).toContain("== warmup: 1 untimed proof(s) [modelled ETA 400.0 s]\n");
    expect(out.text()).toContain("\r\u001b[2K.. warmup: 5.");
    expect(out.text()).toMatch(/warmup: 5\.\d s elapsed, modelled ETA 400\.0 s/);
  });

  it("leaves out events not worth a line", () => {
    expect(
      formatProgressLine({ type: "proof-started", index: 1, warmup: false }, snapshot(0)),
    ).toBeUndefined();
    expect(
      formatProgressLine({ type: "proof-completed", index: 0, warmup: true, wallMs: 300_000 }, snapshot(0)),
    ).toBe("warmup proof completed in 300.0 s");
  });
});

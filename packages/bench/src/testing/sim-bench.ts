// Shared set-up of the runBenchmark tests: a simulator per test, the request they all submit,
// and runBenchmark against that simulator. Not exported from the package.
import { porepRequest } from "@cuzkit/client";
import { createSyntheticC1, type SimDaemon, type SimDaemonOptions, startSimDaemon } from "@cuzkit/sim";
import { onTestFinished } from "vitest";
import type { BenchmarkOptions } from "../options.js";
import type { BenchmarkReport } from "../report.js";
import { runBenchmark } from "../run-benchmark.js";

/** Starts an in-process simulator for the running test; it is stopped when the test ends, passed or failed. */
export async function startTestSim(options: SimDaemonOptions): Promise<SimDaemon> {
  const sim = await startSimDaemon(options);
  onTestFinished(() => sim.stop());
  return sim;
}

/** The synthetic PoRep request every proof of these tests submits. */
export const syntheticRequest = () =>
  porepRequest({ c1: createSyntheticC1(), minerId: 1000, sectorNumber: 1 });

/** Client options that give up on a dead daemon after `giveUpAfterMs` instead of minutes. */
export const fastReconnect = (giveUpAfterMs: number): NonNullable<BenchmarkOptions["client"]> => ({
  reconnect: { initialDelayMs: 20, maxDelayMs: 100, giveUpAfterMs, probeTimeoutMs: 500 },
});

/** What a test sets of runBenchmark's options: all but the address and the request. */
export type BenchAgainstOptions = Omit<BenchmarkOptions, "address" | "request">;

/** runBenchmark against `sim` with the synthetic request; `options` are the test's. */
export async function benchAgainst(sim: SimDaemon, options: BenchAgainstOptions): Promise<BenchmarkReport> {
  return runBenchmark({ address: sim.address, request: await syntheticRequest(), ...options });
}

/**
 * The report's proofs/hour recomputed from its records alone: per slot, its first timed submit to
 * its last timed completion; slots with a completion x completed x 1 h / the sum of those spans.
 */
export function rateFromRecords(report: BenchmarkReport): number {
  const spans = new Map<number, { firstSubmitMs: number; lastCompletionMs: number; completed: number }>();
  for (const r of report.records) {
    if (r.warmup || r.slot === undefined) continue;
    const span = spans.get(r.slot) ?? {
      firstSubmitMs: r.submitMs,
      lastCompletionMs: r.submitMs,
      completed: 0,
    };
    span.firstSubmitMs = Math.min(span.firstSubmitMs, r.submitMs);
    if (r.outcome === "completed") {
      span.completed++;
      span.lastCompletionMs = Math.max(span.lastCompletionMs, r.settleMs);
    }
    spans.set(r.slot, span);
  }
  const used = [...spans.values()].filter((s) => s.completed > 0);
  const completed = used.reduce((sum, s) => sum + s.completed, 0);
  const slotTimeMs = used.reduce((sum, s) => sum + s.lastCompletionMs - s.firstSubmitMs, 0);
  return slotTimeMs > 0 ? (used.length * completed * 3_600_000) / slotTimeMs : 0;
}

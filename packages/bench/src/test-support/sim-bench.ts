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

// Early verdict vs the fixed 12-proof batch, on simulated machines well above (2x) and well
// below (0.5x) a threshold, 100 seeded runs each (proof times jittered +-30% from the seed).
// Prints the paid time (timed window, and the whole run) of each mode, their ratio, and how
// often both modes reach the same verdict. Targets: half the paid time or less, the same
// verdict in at least 95 of 100 runs per machine. Run: pnpm bench:early-verdict
import { porepRequest } from "@cuzkit/client";
import { createSyntheticC1, startSimDaemon } from "@cuzkit/sim";
import { runBenchmark } from "../src/index.js";

const seeds = Number(process.env.SEEDS ?? 100);
const concurrency = 2;
const count = 12;
const jitter = 0.3;
// The threshold is 2 proofs per proofTime at concurrency 2, so these machines are 2x and 0.5x it.
const baseProofMs = 120;
const threshold = (concurrency * 3_600_000) / baseProofMs;
const machines = [
  { name: "2x the threshold", proofTimeMs: baseProofMs / 2, expected: "MET" },
  { name: "0.5x the threshold", proofTimeMs: baseProofMs * 2, expected: "BELOW" },
] as const;
const request = await porepRequest({ c1: createSyntheticC1(), minerId: 1000, sectorNumber: 1 });

async function once(proofTimeMs: number, seed: number, early: boolean) {
  const sim = await startSimDaemon({ proofTimeMs, proofTimeJitter: jitter, seed });
  try {
    const started = performance.now();
    const report = await runBenchmark({
      address: sim.address,
      request,
      count,
      concurrency,
      warmup: "none",
      minProofsPerHour: threshold,
      earlyVerdict: early,
      watchdog: false,
    });
    return { report, wallMs: performance.now() - started };
  } finally {
    await sim.stop();
  }
}

console.log(
  `early verdict (SPRT, 95% confidence, +-10% indifference) vs fixed ${count}-proof batch; concurrency ${concurrency}, threshold ${threshold.toFixed(0)}/h, proof times +-${jitter * 100}%, ${seeds} seeds`,
);
let allMet = true;
for (const machine of machines) {
  let same = 0;
  let rightEarly = 0;
  let paidEarly = 0;
  let paidFixed = 0;
  let wallEarly = 0;
  let wallFixed = 0;
  let samples = 0;
  for (let seed = 1; seed <= seeds; seed++) {
    const fixed = await once(machine.proofTimeMs, seed, false);
    const early = await once(machine.proofTimeMs, seed, true);
    if (fixed.report.verdict.status === early.report.verdict.status) same++;
    if (early.report.verdict.status === machine.expected) rightEarly++;
    paidFixed += fixed.report.timedWindowMs;
    paidEarly += early.report.timedWindowMs;
    wallFixed += fixed.wallMs;
    wallEarly += early.wallMs;
    samples += early.report.verdict.early?.samples ?? count;
  }
  const ratio = paidEarly / paidFixed;
  const met = ratio <= 0.5 && same >= Math.ceil(0.95 * seeds);
  allMet &&= met;
  console.log(
    `${machine.name.padEnd(20)} | same verdict ${same}/${seeds} (early right ${rightEarly}/${seeds}) | paid (timed window) early ${(paidEarly / seeds).toFixed(0)} ms vs fixed ${(paidFixed / seeds).toFixed(0)} ms = ${(ratio * 100).toFixed(0)}% | whole run ${((wallEarly / wallFixed) * 100).toFixed(0)}% | ${(samples / seeds).toFixed(1)} proofs to decide | ${met ? "MET" : "MISSED"}`,
  );
}
console.log(`targets (paid time <= 50%, same verdict >= 95/100): ${allMet ? "MET" : "MISSED"}`);
process.exitCode = allMet ? 0 : 1;

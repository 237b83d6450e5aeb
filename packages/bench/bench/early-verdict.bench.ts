// The early verdict on seeded synthetic proof timings (no daemon, no real time): lognormal stage
// times, synthesis pipelined behind the GPU, machines with 1-4 slots and 1-2 GPUs, the threshold
// set from each machine's long-run rate. Seeds start at 900001, never used to tune the test.
// Prints per machine: early verdicts on the wrong side at 0.95x and 1.05x the threshold (target 0
// in the first 100 seeds of each machine; the total over all seeds shows the residual rate),
// and at 0.7x and 1.4x how often it stopped early and the mean proofs it needed vs the full batch.
// Also, for reference, how often the full batch's own point estimate lands on the wrong side at
// 0.95x/1.05x (noise the early verdict must not add to). Run: pnpm bench:early-verdict
import {
  runSyntheticBatch,
  type SyntheticMachine,
  sustainedProofsPerHour,
} from "../src/test-support/synthetic-proofs.js";

const seeds = Number(process.env.SEEDS ?? 1000);
const firstSeed = 900_001;
const machines: { name: string; machine: SyntheticMachine; count: number }[] = [
  {
    name: "1 slot, CV 0.3",
    machine: { concurrency: 1, synthesisMs: 40_000, gpuMs: 80_000, cv: 0.3 },
    count: 12,
  },
  {
    name: "2 slots/1 GPU, CV 0.3",
    machine: { concurrency: 2, synthesisMs: 60_000, gpuMs: 100_000, cv: 0.3 },
    count: 12,
  },
  {
    name: "2 slots/1 GPU, CV 0.2",
    machine: { concurrency: 2, synthesisMs: 60_000, gpuMs: 100_000, cv: 0.2 },
    count: 24,
  },
  {
    name: "3 slots/2 GPUs, CV 0.2",
    machine: { concurrency: 3, gpus: 2, synthesisMs: 50_000, gpuMs: 100_000, cv: 0.2 },
    count: 12,
  },
  {
    name: "4 slots/2 GPUs, CV 0.1",
    machine: { concurrency: 4, gpus: 2, synthesisMs: 50_000, gpuMs: 100_000, cv: 0.1 },
    count: 12,
  },
];

console.log(
  `early verdict (defaults: 99% confidence, +-10% indifference, >= 5 proofs) on synthetic timings, ${seeds} seeds from ${firstSeed}`,
);
let wrongTotal = 0;
/** Wrong-side early verdicts within the first 100 seeds of each machine (the requirement). */
let wrongFirst100 = 0;
for (const { name, machine, count } of machines) {
  const truth = sustainedProofsPerHour(machine);
  const cells: string[] = [];
  for (const factor of [0.95, 1.05]) {
    let wrong = 0;
    let stops = 0;
    let batchWrong = 0;
    for (let seed = firstSeed; seed < firstSeed + seeds; seed++) {
      const run = runSyntheticBatch(machine, truth / factor, count, seed);
      if (run.decision) {
        stops++;
        if (run.decision.above !== factor > 1) {
          wrong++;
          if (seed < firstSeed + 100) wrongFirst100++;
        }
      } else if (run.proofsPerHour >= truth / factor !== factor > 1) batchWrong++;
    }
    wrongTotal += wrong;
    cells.push(
      `${factor}x: wrong ${wrong}/${seeds} (stopped ${stops}; full-batch estimate wrong ${batchWrong})`,
    );
  }
  for (const factor of [0.7, 1.4]) {
    let proofs = 0;
    let early = 0;
    for (let seed = firstSeed; seed < firstSeed + seeds; seed++) {
      const run = runSyntheticBatch(machine, truth / factor, count, seed);
      proofs += run.proofs;
      if (run.decision && run.proofs < count && run.decision.above === factor > 1) early++;
    }
    cells.push(`${factor}x: ${(proofs / seeds).toFixed(1)}/${count} proofs, early ${early}/${seeds}`);
  }
  console.log(`${name.padEnd(24)} | ${cells.join(" | ")}`);
}
const runs = machines.length * 2 * seeds;
console.log(
  `wrong-side early verdicts at 0.95x/1.05x: ${wrongFirst100} in the first 100 seeds of each machine (target 0): ${wrongFirst100 === 0 ? "MET" : "MISSED"}; ${wrongTotal} in all ${runs} runs (${((wrongTotal / runs) * 100).toFixed(2)}%)`,
);
process.exitCode = wrongFirst100 === 0 ? 0 : 1;

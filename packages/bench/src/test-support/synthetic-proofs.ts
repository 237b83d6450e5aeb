// Synthetic proof timings for the early-verdict tests and bench: no daemon, no real time.
// A daemon with `gpus` GPUs: each proof synthesizes on the CPU (in parallel with everything else),
// then waits for a GPU (first come, first served) and runs on it; both stages' times are
// lognormal with coefficient of variation `cv`. The client keeps `concurrency` proofs in flight,
// submitting the next one `gapMs` after each completion, so synthesis pipelines behind the GPU.
// Not exported from the package.
import { seededRandom } from "@cuzkit/core";
import { createEarlyVerdictTest, type EarlyDecision, type EarlyVerdictOptions } from "../early-verdict.js";
import { basisProofsPerHour, type ProofCycle, type RateBasis, rateBasis } from "../proof-rate.js";

/** The machine and client of a synthetic run. */
export interface SyntheticMachine {
  concurrency: number;
  /** GPUs (each runs one proof's GPU stage at a time). Default 1. */
  gpus?: number | undefined;
  /** Mean synthesis time per proof, ms. */
  synthesisMs: number;
  /** Mean GPU time per proof, ms. */
  gpuMs: number;
  /** Coefficient of variation of both stages' times. */
  cv: number;
  /** Client time between a completion and the slot's next submit, ms. Default 0. */
  gapMs?: number | undefined;
}

/** One synthetic proof, in completion order. */
export interface SyntheticProof {
  slot: number;
  submitMs: number;
  settleMs: number;
}

/** The workspace's seeded generator (core), re-exported where the simulations import it. */
export { seededRandom };

/** A lognormal sampler with the given mean and coefficient of variation. */
function lognormal(random: () => number, mean: number, cv: number): () => number {
  const sigma2 = Math.log(1 + cv * cv);
  const mu = Math.log(mean) - sigma2 / 2;
  const sigma = Math.sqrt(sigma2);
  return () => {
    const u = 1 - random();
    const v = random();
    const z = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
    return Math.exp(mu + sigma * z);
  };
}

/** `count` proofs of `machine` from `seed`, in completion order. */
export function simulateProofs(machine: SyntheticMachine, count: number, seed: number): SyntheticProof[] {
  const random = seededRandom(seed);
  const synthesis = lognormal(random, machine.synthesisMs, machine.cv);
  const gpu = lognormal(random, machine.gpuMs, machine.cv);
  const gapMs = machine.gapMs ?? 0;
  const gpuFree = Array.from({ length: machine.gpus ?? 1 }, () => 0);
  // Each slot's proof in flight: its submit time and when it reaches the GPU queue.
  const inFlight: { slot: number; submitMs: number; arrivalMs: number }[] = [];
  let submitted = 0;
  const submit = (slot: number, atMs: number) => {
    if (submitted >= count) return;
    submitted++;
    inFlight.push({ slot, submitMs: atMs, arrivalMs: atMs + synthesis() });
  };
  for (let slot = 1; slot <= Math.min(machine.concurrency, count); slot++) submit(slot, 0);
  const proofs: SyntheticProof[] = [];
  while (inFlight.length > 0) {
    // Arrivals at the GPU queue are served in order: the next one is the earliest.
    let next = 0;
    for (let i = 1; i < inFlight.length; i++)
      if ((inFlight[i]?.arrivalMs ?? 0) < (inFlight[next]?.arrivalMs ?? 0)) next = i;
    const job = inFlight.splice(next, 1)[0] as (typeof inFlight)[number];
    let card = 0;
    for (let g = 1; g < gpuFree.length; g++) if ((gpuFree[g] ?? 0) < (gpuFree[card] ?? 0)) card = g;
    const settleMs = Math.max(job.arrivalMs, gpuFree[card] ?? 0) + gpu();
    gpuFree[card] = settleMs;
    proofs.push({ slot: job.slot, submitMs: job.submitMs, settleMs });
    submit(job.slot, settleMs + gapMs);
  }
  return proofs.sort((a, b) => a.settleMs - b.settleMs);
}

/** The cycles of `proofs` (completion order) as runBenchmark measures them. */
export function cyclesOf(proofs: readonly SyntheticProof[]): ProofCycle[] {
  const marks = new Map<number, number>();
  return proofs.map((p) => {
    const cycleMs = p.settleMs - (marks.get(p.slot) ?? p.submitMs);
    marks.set(p.slot, p.settleMs);
    return { slot: p.slot, cycleMs };
  });
}

/** The long-run proofs/hour of `machine` (from a long run on a seed of its own). */
export function sustainedProofsPerHour(machine: SyntheticMachine, proofs = 40_000): number {
  // The first and last tenth are left out: the pipeline's fill and drain.
  const run = simulateProofs(machine, proofs, 0x5eed);
  const from = run[Math.floor(proofs / 10)] as SyntheticProof;
  const to = run[Math.floor((proofs * 9) / 10)] as SyntheticProof;
  return (
    ((Math.floor((proofs * 9) / 10) - Math.floor(proofs / 10)) * 3_600_000) / (to.settleMs - from.settleMs)
  );
}

/** What the early verdict and the report say about one synthetic batch. */
export interface SyntheticOutcome {
  /** The early decision, or undefined when the full batch ran. */
  decision: EarlyDecision | undefined;
  /** Proofs the run completed (up to the decision, or the whole batch). */
  proofs: number;
  /** The report's rate over those proofs, and its basis. */
  proofsPerHour: number;
  basis: RateBasis;
}

/** Feeds a batch of `count` synthetic proofs to the early verdict, stopping where it decides. */
export function runSyntheticBatch(
  machine: SyntheticMachine,
  minProofsPerHour: number,
  count: number,
  seed: number,
  options: EarlyVerdictOptions = {},
): SyntheticOutcome {
  const test = createEarlyVerdictTest(minProofsPerHour, machine.concurrency, {
    maxSamples: count,
    ...options,
  });
  const cycles = cyclesOf(simulateProofs(machine, count, seed));
  const counted: ProofCycle[] = [];
  let decision: EarlyDecision | undefined;
  for (const cycle of cycles) {
    counted.push(cycle);
    decision = test.add(cycle.cycleMs, cycle.slot);
    if (decision) break;
  }
  const basis = rateBasis(counted);
  return { decision, proofs: counted.length, proofsPerHour: basisProofsPerHour(basis), basis };
}

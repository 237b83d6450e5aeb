import { hardwareFrom, seededRandom } from "@cuzkit/core";
import { recommend } from "@cuzkit/tuner";
import { hardwareClassKey } from "../economics/hardware-class.js";
import type { RankCandidate } from "../economics/ranking.js";

/** What a hidden machine does, that the fleet can only learn by renting it. */
export type HiddenQuirk = "none" | "slow-memory" | "weak-cpu" | "flaky" | "never-params";

/** One offer of the simulated market and its hidden truth. */
export interface HiddenOffer {
  candidate: RankCandidate;
  gpuName: string;
  numGpus: number;
  ramGib: number;
  cpuCores: number;
  cpuName: string;
  /** True proofs/hour over the model's prediction (class bias x machine x quirk). */
  trueFactor: number;
  /** The true steady proofs/hour. */
  trueProofsPerHour: number;
  quirk: HiddenQuirk;
  /** For `flaky`: hours after renting at which it dies. */
  diesAfterHours: number | undefined;
}

/** A seeded market. */
export interface HiddenMarket {
  seed: number;
  offers: HiddenOffer[];
}

/** The workspace's seeded generator (core), re-exported where the simulations import it. */
export { seededRandom };

/** A standard normal draw (Box-Muller). */
export function gaussian(random: () => number): number {
  const u = Math.max(random(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

const gpuPrices: ReadonlyArray<[string, number]> = [
  ["RTX 3090", 0.22],
  ["RTX 4090", 0.38],
  ["RTX A6000", 0.45],
  ["A40", 0.4],
  ["L40S", 0.75],
  ["A100", 0.9],
  ["H100", 1.9],
];
const cpuNames = ["AMD EPYC 7302", "AMD EPYC 7742", "Intel Xeon Gold 6248", "AMD Ryzen 9 5950X"];

const predictionCache = new Map<string, { feasible: boolean; proofsPerHour: number }>();

/** The tuner's uncalibrated prediction for a simulated offer (cached: the market repeats shapes). */
export function predictFor(numGpus: number, gpuName: string, ramGib: number, cpuCores: number) {
  const key = `${numGpus}|${gpuName}|${ramGib}|${cpuCores}`;
  let hit = predictionCache.get(key);
  if (hit === undefined) {
    const r = recommend(
      hardwareFrom({ ram: `${ramGib}GiB`, cores: cpuCores, gpus: `${numGpus}x${gpuName.replace(/ /g, "")}` }),
      { dialect: "budget" },
    );
    hit = { feasible: r.feasible, proofsPerHour: r.predicted.proofsPerHour };
    predictionCache.set(key, hit);
  }
  return hit;
}

/**
 * A market of `offers` machines whose true rates differ from the model by hidden factors: a
 * bias per hardware class (a platform's memory, a CPU line the model flatters), a small
 * per-machine spread, and quirks: slow memory (x0.55), a weak CPU (x0.45), a flaky host that
 * dies some hours after it is rented, and one whose parameter download never finishes.
 */
export function hiddenMarket(seed: number, options: { offers?: number | undefined } = {}): HiddenMarket {
  const random = seededRandom(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)] as T;
  const classBias = new Map<string, number>();
  const offers: HiddenOffer[] = [];
  const count = options.offers ?? 80;
  for (let i = 0; i < count; i += 1) {
    const [gpuName, gpuPrice] = pick(gpuPrices);
    const numGpus = pick([1, 2, 2, 4]);
    const ramGib = pick([256, 256, 512, 512, 1024]);
    const cpuCores = pick([16, 32, 32, 64]);
    const cpuName = pick(cpuNames);
    const predicted = predictFor(numGpus, gpuName, ramGib, cpuCores);
    const classKey = hardwareClassKey({ gpuName, numGpus, cpuRamBytes: ramGib * 2 ** 30, cpuCores, cpuName });
    let bias = classBias.get(classKey);
    if (bias === undefined) {
      bias = Math.exp(0.35 * gaussian(random));
      classBias.set(classKey, bias);
    }
    const roll = random();
    const quirk: HiddenQuirk =
      roll < 0.08
        ? "slow-memory"
        : roll < 0.16
          ? "weak-cpu"
          : roll < 0.24
            ? "flaky"
            : roll < 0.29
              ? "never-params"
              : "none";
    const quirkFactor = quirk === "slow-memory" ? 0.55 : quirk === "weak-cpu" ? 0.45 : 1;
    const trueFactor = bias * Math.exp(0.08 * gaussian(random)) * quirkFactor;
    const dphTotal =
      Math.round(
        (0.08 + numGpus * gpuPrice + ramGib * 0.0004 + cpuCores * 0.004) *
          Math.exp(0.2 * gaussian(random)) *
          1000,
      ) / 1000;
    offers.push({
      candidate: {
        offerId: 100_000 + seed * 1000 + i,
        machineId: 50_000 + seed * 1000 + i,
        hostId: 9_000 + seed * 100 + Math.floor(i / 2),
        classKey,
        dphTotal,
        predictedProofsPerHour: predicted.proofsPerHour,
        feasible: predicted.feasible,
        marketReliability: undefined,
      },
      gpuName,
      numGpus,
      ramGib,
      cpuCores,
      cpuName,
      trueFactor,
      trueProofsPerHour: predicted.proofsPerHour * trueFactor,
      quirk,
      diesAfterHours: quirk === "flaky" ? 0.5 + random() * 8 : undefined,
    });
  }
  return { seed, offers };
}

import { hardwareClassKey } from "../economics/hardware-class.js";
import { gaussian, type HiddenOffer, hiddenMarket, predictFor, seededRandom } from "./hidden-truth.js";

/** The named markets of the economics benchmark: the base market and one property of the real market each. */
export const marketScenarios = [
  "base",
  "random-deaths",
  "degrading",
  "lemons",
  "moving-prices",
  "shared-classes",
  "param-download",
  "specs-right",
] as const;

/** One named market scenario. */
export type MarketScenario = (typeof marketScenarios)[number];

/** An offer of a market that moves: its hidden truth over the day. */
export interface MovingOffer extends HiddenOffer {
  /** Hours of the day from which the offer is listed (rentable). */
  listedFromH: number;
  /** Hours of the day after which it is no longer listed (a running rental goes on). */
  listedUntilH: number;
  /** A price change of the listing, $/h from `atH` on; a rental pays the price of its start. */
  priceChange: { atH: number; dphTotal: number } | undefined;
  /** Parameter download of every rental, hours (its bandwidth). */
  paramsHours: number;
  /** What the download costs per rental, $ (the host's bandwidth charge). */
  paramsUsd: number;
  /** After this many hours kept (all rentals of the day together), the machine runs at `factor` of its rate. */
  degrade: { afterHours: number; factor: number } | undefined;
  /** Hours each successive rental lives before the host dies (Infinity: it does not). */
  lifetimesHours: number[];
  /** The lowest interruptible bid the listing takes, $/h (a share of its on-demand price). */
  minBid: number;
  /** How often a rental at a bid is outbid (stopped), per rented hour: the demand for this listing. */
  outbidPerHour: number;
}

/** A market whose offers move during the day. */
export interface MovingMarket {
  seed: number;
  scenario: MarketScenario;
  offers: MovingOffer[];
}

/** The daemon's warmup after the parameters, hours (every rental). */
export const warmupHours = 0.2;

/** The listed price of an offer at hour `t`. */
export function priceAt(o: MovingOffer, t: number): number {
  return o.priceChange !== undefined && t >= o.priceChange.atH
    ? o.priceChange.dphTotal
    : o.candidate.dphTotal;
}

/** Whether the offer can be rented at hour `t`. */
export function listedAt(o: MovingOffer, t: number): boolean {
  return t >= o.listedFromH && t < o.listedUntilH;
}

/** The machine's true proofs/hour once it has been kept `keptHours` in the day. */
export function trueRateAt(o: MovingOffer, keptHours: number): number {
  const degraded = o.degrade !== undefined && keptHours >= o.degrade.afterHours;
  return o.trueProofsPerHour * (degraded ? (o.degrade?.factor ?? 1) : 1);
}

const lemonFactor = 0.5;
const hazardPerHour = 1 / 20;

/**
 * The hidden market of {@link hiddenMarket} with one property of the real market added, by name:
 *
 * - `base`: the hidden market as it was (class bias, quirks, flaky hosts that die every rental).
 * - `random-deaths`: every host dies at a steady hazard (1 in 20 rental-hours), whatever its quality.
 * - `degrading`: a third of the machines throttle to 0.45-0.7 of their rate after 3-10 hours kept.
 * - `lemons`: classes shared by several offers, and a fifth of every class is a lemon (x0.5).
 * - `moving-prices`: a third of the listings change price at a random hour (x0.6-1.5), a fifth
 *   appear during the day and a fifth vanish.
 * - `shared-classes`: offers drawn from 10 hardware shapes, so each class has several machines.
 * - `param-download`: the download takes 0.2-2.5 hours and costs $0.05-0.6 per rental.
 * - `specs-right`: the spec sheet is nearly right (x1 within 3%, no quirks).
 */
export function movingMarket(
  seed: number,
  scenario: MarketScenario,
  options: { offers?: number } = {},
): MovingMarket {
  const count = options.offers ?? 80;
  const shared = scenario === "shared-classes" || scenario === "lemons";
  const base = shared ? sharedClassMarket(seed, count) : hiddenMarket(seed, { offers: count }).offers;
  const random = seededRandom(seed * 104_729 + marketScenarios.indexOf(scenario) * 7919 + 1);
  const offers: MovingOffer[] = base.map((o) => ({
    ...o,
    listedFromH: 0,
    listedUntilH: Number.POSITIVE_INFINITY,
    priceChange: undefined,
    paramsHours: 0.35 + 0.1 * random(),
    paramsUsd: 0,
    degrade: undefined,
    lifetimesHours: lifetimes(o, random, scenario === "random-deaths"),
    minBid: o.candidate.dphTotal,
    outbidPerHour: 0,
  }));
  if (scenario === "lemons") {
    const byClass = new Map<string, MovingOffer[]>();
    for (const o of offers)
      byClass.set(o.candidate.classKey, [...(byClass.get(o.candidate.classKey) ?? []), o]);
    for (const members of byClass.values()) {
      // A fifth of every class, at least one where the class has three or more.
      const lemons = Math.max(members.length >= 3 ? 1 : 0, Math.round(members.length / 5));
      const order = members.map((o) => ({ o, key: random() })).sort((a, b) => a.key - b.key);
      for (const { o } of order.slice(0, lemons)) {
        o.quirk = "slow-memory";
        o.trueFactor *= lemonFactor;
        o.trueProofsPerHour *= lemonFactor;
      }
    }
  }
  if (scenario === "degrading") {
    for (const o of offers)
      if (random() < 1 / 3) o.degrade = { afterHours: 3 + 7 * random(), factor: 0.45 + 0.25 * random() };
  }
  if (scenario === "moving-prices") {
    for (const o of offers) {
      const roll = random();
      if (roll < 0.2) o.listedFromH = 1 + 16 * random();
      else if (roll < 0.4) o.listedUntilH = 1 + 16 * random();
      if (random() < 1 / 3) {
        const factor = Math.min(1.5, Math.max(0.6, Math.exp(0.3 * gaussian(random))));
        o.priceChange = {
          atH: 2 + 16 * random(),
          dphTotal: Math.round(o.candidate.dphTotal * factor * 1000) / 1000,
        };
      }
    }
  }
  if (scenario === "param-download") {
    for (const o of offers) {
      o.paramsHours = 0.2 + 2.3 * random();
      o.paramsUsd = Math.round((0.05 + 0.55 * random()) * 100) / 100;
    }
  }
  if (scenario === "specs-right") {
    for (const o of offers) {
      o.quirk = "none";
      o.trueFactor = Math.exp(0.03 * gaussian(random));
      o.trueProofsPerHour = o.candidate.predictedProofsPerHour * o.trueFactor;
      o.lifetimesHours = lifetimes(o, random, false);
    }
  }
  // Interruptible terms from a stream of their own, so every other draw of the market stays as it was.
  const bids = seededRandom(seed * 7_919 + 424_243);
  for (const o of offers) {
    o.minBid = Math.round(o.candidate.dphTotal * (0.3 + 0.3 * bids()) * 1000) / 1000;
    // 1 in 40 to 1 in 3 rented hours, log-uniform: some listings are in demand, most are not.
    o.outbidPerHour = (1 / 40) * Math.exp(Math.log(40 / 3) * bids());
  }
  return { seed, scenario, offers };
}

/** Rental lifetimes: a flaky host dies after the same hours every rental; at a hazard, exponential draws. */
function lifetimes(o: HiddenOffer, random: () => number, hazard: boolean): number[] {
  const out: number[] = [];
  for (let i = 0; i < 40; i += 1) {
    let life =
      o.quirk === "flaky" && o.diesAfterHours !== undefined ? o.diesAfterHours : Number.POSITIVE_INFINITY;
    if (hazard) life = Math.min(life, -Math.log(Math.max(random(), 1e-12)) / hazardPerHour);
    out.push(life);
  }
  return out;
}

/** A market of 10 hardware shapes, so each class has several offers (machines and hosts of their own). */
function sharedClassMarket(seed: number, count: number): HiddenOffer[] {
  const random = seededRandom(seed * 31 + 5);
  const gpus: ReadonlyArray<[string, number]> = [
    ["RTX 3090", 0.22],
    ["RTX 4090", 0.38],
    ["RTX A6000", 0.45],
    ["A40", 0.4],
    ["L40S", 0.75],
    ["A100", 0.9],
  ];
  const cpus = ["AMD EPYC 7302", "AMD EPYC 7742", "Intel Xeon Gold 6248", "AMD Ryzen 9 5950X"];
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)] as T;
  const shapes = Array.from({ length: 10 }, () => {
    const [gpuName, gpuPrice] = pick(gpus);
    return {
      gpuName,
      gpuPrice,
      numGpus: pick([1, 2, 2, 4]),
      ramGib: pick([256, 512, 512, 1024]),
      cpuCores: pick([32, 32, 64]),
      cpuName: pick(cpus),
      bias: Math.exp(0.35 * gaussian(random)),
    };
  });
  const offers: HiddenOffer[] = [];
  for (let i = 0; i < count; i += 1) {
    const s = pick(shapes);
    const predicted = predictFor(s.numGpus, s.gpuName, s.ramGib, s.cpuCores);
    const classKey = hardwareClassKey({
      gpuName: s.gpuName,
      numGpus: s.numGpus,
      cpuRamBytes: s.ramGib * 2 ** 30,
      cpuCores: s.cpuCores,
      cpuName: s.cpuName,
    });
    const roll = random();
    const quirk = roll < 0.06 ? "flaky" : roll < 0.1 ? "never-params" : "none";
    const trueFactor = s.bias * Math.exp(0.08 * gaussian(random));
    const dphTotal =
      Math.round(
        (0.08 + s.numGpus * s.gpuPrice + s.ramGib * 0.0004 + s.cpuCores * 0.004) *
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
      gpuName: s.gpuName,
      numGpus: s.numGpus,
      ramGib: s.ramGib,
      cpuCores: s.cpuCores,
      cpuName: s.cpuName,
      trueFactor,
      trueProofsPerHour: predicted.proofsPerHour * trueFactor,
      quirk,
      diesAfterHours: quirk === "flaky" ? 0.5 + random() * 8 : undefined,
    });
  }
  return offers;
}

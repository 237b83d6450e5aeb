import type { ClassCalibration } from "../economics/calibration.js";
import type { RankedOffer } from "../manager/rank-offers.js";
import type { HostPerformanceRecord } from "../store/host-performance.js";
import type { DemoOffer } from "./demo-market.js";
import type { DemoInstanceOutcome, MarketDemoSummary } from "./market-demo-types.js";

// What `cuzkit fleet demo` prints: rankings, how each machine ended, the calibration it learnt
// and the $ per 1000 proofs it achieved.

const money = (x: number) => (Number.isFinite(x) ? `$${x.toFixed(2)}` : "-");
const rate = (x: number | undefined) => (x === undefined ? "-" : x.toFixed(1));

export function writeOutcomes(
  write: (line: string) => void,
  instances: readonly DemoInstanceOutcome[],
): void {
  write("\nhow each machine ended (the hidden truth in brackets):");
  for (const i of instances) {
    write(
      `  offer ${i.offerId} ${i.instanceId} ${outcomeLabel(i.state)} ${i.verdict ?? "no verdict"} ${rate(i.measuredProofsPerHour)} proofs/hour (true ${rate(i.trueProofsPerHour)}), billed ${i.billedHours.toFixed(1)} h${outcomeLabel(i.state) === "DESTROYED" ? `: ${i.why ?? ""}` : ""}  [hidden: ${i.offer.quirk}, x${i.offer.trueFactor.toFixed(2)}]`,
    );
  }
}

export function writeCalibration(
  write: (line: string) => void,
  calibration: ReadonlyMap<string, ClassCalibration>,
  classTruth: ReadonlyMap<string, number>,
): void {
  write("\nlearnt calibration (measured / model), next to the truth the market counted:");
  for (const c of calibration.values()) {
    const truth = classTruth.get(c.classKey);
    write(
      `  ${c.classKey.padEnd(52)} x${c.factor.toFixed(2)} (spread ${c.spreadLog.toFixed(2)}, n=${c.samples})  true x${truth?.toFixed(2) ?? "?"}`,
    );
  }
  write(
    "  (true: proofs its served machines completed per hour, over the model, where one served 10+ proofs over half an hour or more; the simulator itself runs below the tuner's model, so even an honest class is below x1)",
  );
}

/** The $ per 1000 proofs achieved from the proofs the agents counted, printed and returned. */
export function costSummary(
  write: (line: string) => void,
  performance: readonly HostPerformanceRecord[],
  instances: readonly DemoInstanceOutcome[],
): Pick<MarketDemoSummary, "productionProofs" | "dollars" | "costPer1000" | "bestTrueCostPer1000"> {
  const production = performance.filter((p) => p.kind === "production");
  // The agents reported counted proofs over windows; the store keeps them as a rate and a window.
  const productionProofs = production.reduce(
    (sum, p) => sum + Math.round((p.proofsPerHour * (p.windowMs ?? 0)) / 3_600_000),
    0,
  );
  const dollars = instances.reduce((sum, i) => sum + i.offer.dphTotal * i.billedHours, 0);
  const costPer1000 = productionProofs > 0 ? (dollars * 1000) / productionProofs : Number.POSITIVE_INFINITY;
  const bestTrueCostPer1000 = Math.min(
    ...instances
      .filter((i) => i.trueProofsPerHour !== undefined)
      .map((i) => (i.offer.dphTotal * 1000) / (i.trueProofsPerHour as number)),
  );
  write("\n$ per 1000 proofs achieved:");
  write(
    `  ${productionProofs} proofs counted in ${production.length} production reports; ${money(dollars)} billed over ${instances.length} rentals (vetting included)`,
  );
  write(
    `  achieved ${money(costPer1000)} per 1000 proofs; the best machine it found produces at ${money(bestTrueCostPer1000)} (its true rate)`,
  );
  write(
    "  (the achieved figure pays for every rental's vetting, the machines that failed, and hours before the first production report)",
  );
  return { productionProofs, dollars, costPer1000, bestTrueCostPer1000 };
}

export function writeRanking(
  write: (line: string) => void,
  title: string,
  ranked: readonly RankedOffer[],
  byOffer: ReadonlyMap<number, DemoOffer>,
): void {
  write(title);
  write(
    "  offer  gpus           used        predicted  corrected  measured (n)  $/h    $/1000  optimistic  [hidden]",
  );
  for (const { offer, ranking: r } of ranked) {
    const hidden = byOffer.get(offer.id);
    write(
      `  ${offer.id}   ${`${offer.numGpus}x ${offer.gpuName}`.padEnd(13)}  ${r.source.padEnd(10)}  ${rate(r.predictedProofsPerHour).padStart(9)}  ${rate(r.correctedProofsPerHour).padStart(9)}  ${(r.measured === undefined ? "-" : `${rate(r.measured.proofsPerHour)} (${r.measured.runs})`).padStart(12)}  ${offer.dphTotal.toFixed(3)}  ${money(r.costPer1000).padStart(6)}  ${money(r.optimisticCostPer1000).padStart(10)}  [${hidden?.quirk ?? "?"}, x${hidden?.trueFactor.toFixed(2) ?? "?"}]`,
    );
  }
}

/** Per class, the geometric mean of true production rate / model over the machines that served work. */
export function trueClassFactors(instances: readonly DemoInstanceOutcome[]): Map<string, number> {
  const logs = new Map<string, number[]>();
  for (const i of instances) {
    if (i.trueProofsPerHour === undefined || !(i.trueProofsPerHour > 0)) continue;
    const list = logs.get(i.offer.classKey) ?? [];
    list.push(Math.log(i.trueProofsPerHour / i.offer.predictedProofsPerHour));
    logs.set(i.offer.classKey, list);
  }
  return new Map(
    [...logs].map(([key, xs]) => [key, Math.exp(xs.reduce((a, b) => a + b, 0) / xs.length)] as const),
  );
}

/** KEPT, DESTROYED, or STILL VETTING when the run ended before its verdict. */
function outcomeLabel(state: string): string {
  if (state === "active") return "KEPT";
  return ["destroyed", "destroying", "failed", "rejected", "draining"].includes(state)
    ? "DESTROYED"
    : "STILL VETTING";
}

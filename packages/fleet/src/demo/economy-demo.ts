import { rankCandidates } from "../economics/ranking.js";
import { type EconomyEvent, type EconomyResult, simulateEconomy } from "../testing/economy-sim.js";
import { type HiddenMarket, hiddenMarket } from "../testing/hidden-truth.js";

/** Options of {@link runEconomyDemo}. */
export interface EconomyDemoOptions {
  /** The hidden market's seed. Default 3. */
  seed?: number | undefined;
  /** Simulated hours. Default 12. */
  hours?: number | undefined;
  /** Where the lines go. Required. */
  write: (line: string) => void;
}

/** What the demo showed, for tests. */
export interface EconomyDemoSummary {
  market: HiddenMarket;
  learning: EconomyResult;
  specOnly: EconomyResult;
  oracle: EconomyResult;
  events: EconomyEvent[];
}

const money = (x: number) => `$${x.toFixed(2)}`;

/**
 * `cuzkit fleet demo`: a fleet on a seeded hidden market (machines whose truth differs from
 * the model: class bias, slow memory, weak CPUs, flaky hosts, parameters that never finish),
 * decided by the fleet's own ranking, calibration and run planner. Prints the ranking before
 * and after measurement, every machine kept or destroyed with why, the learnt calibration, and
 * the $ per 1000 proofs achieved next to ranking by specs alone and an oracle.
 */
export function runEconomyDemo(options: EconomyDemoOptions): EconomyDemoSummary {
  const market = hiddenMarket(options.seed ?? 3);
  const hours = options.hours ?? 12;
  const { write } = options;
  const events: EconomyEvent[] = [];
  const top = (label: string, knowledge: EconomyResult["knowledge"] | undefined) => {
    const { ranked } = rankCandidates(
      market.offers.map((o) => o.candidate),
      knowledge ?? { calibration: new Map(), machines: new Map(), hosts: new Map() },
      { minProofsPerHour: 40 },
    );
    write(`\n${label}`);
    write(
      "  offer    class                                          used        proofs/h   $/h    $/1k (optimistic)",
    );
    for (const r of ranked.slice(0, 6)) {
      write(
        `  ${r.candidate.offerId}  ${r.candidate.classKey.padEnd(45).slice(0, 45)}  ${r.source.padEnd(10)}  ${r.estimateProofsPerHour.toFixed(1).padStart(8)}  ${r.candidate.dphTotal.toFixed(3)}  ${money(r.costPer1000)} (${money(r.optimisticCostPer1000)})`,
      );
    }
  };
  write(
    `hidden market seed ${market.seed}: ${market.offers.length} offers, ${hours} simulated hours, target 300 proofs/hour, minimum 40`,
  );
  top("ranking before any measurement (the model only):", undefined);
  const learning = simulateEconomy(market, { policy: "learning", hours, onEvent: (e) => events.push(e) });
  write("\ndecisions and outcomes:");
  for (const e of events) {
    if (e.kind === "rent") continue;
    const o = market.offers.find((x) => x.candidate.offerId === e.offerId);
    write(
      `  ${e.atHours.toFixed(2).padStart(5)} h  ${e.kind.padEnd(8)} offer ${e.offerId}: ${e.reason}  [hidden: ${o?.quirk ?? "?"}, x${o?.trueFactor.toFixed(2) ?? "?"}]`,
    );
  }
  write(`  rentals ${learning.rentals}, kept ${learning.kept}`);
  top("ranking after measurement:", learning.knowledge);
  write("\nlearnt calibration (measured / predicted):");
  for (const c of [...learning.knowledge.calibration.values()]
    .sort((a, b) => b.samples - a.samples)
    .slice(0, 8)) {
    write(
      `  ${c.classKey.padEnd(48)} x${c.factor.toFixed(2)}  spread ${c.spreadLog.toFixed(2)}  n=${c.samples}`,
    );
  }
  const specOnly = simulateEconomy(market, { policy: "spec-only", hours });
  const oracle = simulateEconomy(market, { policy: "oracle", hours });
  write("\n$ per 1000 proofs achieved:");
  write(
    `  learning fleet ${money(learning.costPer1000)}   spec-only ${money(specOnly.costPer1000)}   oracle ${money(oracle.costPer1000)}`,
  );
  return { market, learning, specOnly, oracle, events };
}

import { learnCalibration, type RateSample } from "../economics/calibration.js";
import {
  type MachineMeasurements,
  noKnowledge,
  type RankCandidate,
  type RankingKnowledge,
  rankCandidates,
} from "../economics/ranking.js";
import {
  type FleetDecision,
  type FleetMember,
  type FleetTarget,
  planFleetStep,
} from "../economics/run-planner.js";
import { gaussian, type HiddenMarket, type HiddenOffer, seededRandom } from "./hidden-truth.js";

/** How a simulated fleet chooses. */
export type EconomyPolicy = "learning" | "spec-only" | "oracle";

/** Options of {@link simulateEconomy}. */
export interface EconomyOptions {
  policy: EconomyPolicy;
  /** Simulated hours. Default 24. */
  hours?: number | undefined;
  /** Step, minutes. Default 5. */
  stepMinutes?: number | undefined;
  /** Default 300 proofs/hour. */
  target?: FleetTarget | undefined;
  /** Default 40. */
  minProofsPerHour?: number | undefined;
  /** Default none. */
  maxDph?: number | undefined;
  /** Timed proofs of a full benchmark. Default 12. */
  benchmarkProofs?: number | undefined;
  /** Called with every decision and outcome, for the demo's log. */
  onEvent?: ((event: EconomyEvent) => void) | undefined;
}

/** A logged decision or outcome of the simulated fleet. */
export interface EconomyEvent {
  atHours: number;
  kind: "rent" | "destroy" | "kept" | "rejected" | "failed" | "died";
  offerId: number;
  reason: string;
}

/** What one simulated day cost and produced. */
export interface EconomyResult {
  policy: EconomyPolicy;
  dollars: number;
  proofs: number;
  /** Realised $ per 1000 proofs. */
  costPer1000: number;
  rentals: number;
  kept: number;
  /** The knowledge at the end (learning policy; empty otherwise). */
  knowledge: RankingKnowledge;
  samples: RateSample[];
}

interface Rental {
  id: string;
  offer: HiddenOffer;
  rentedAtH: number;
  stage: "vetting" | "active";
  /** When vetting ends (the verdict), hours. */
  verdictAtH: number;
  estimate: number;
  measured: number | undefined;
}

/**
 * A fast in-process day of a fleet on a hidden market, with the fleet's own ranking
 * (`rankCandidates`), calibration (`learnCalibration`) and decisions
 * (`planFleetStep`); only the machines are simulated. A rented machine bills from the
 * rent to the destroy; it vets (parameters, warmup, the benchmark with the early verdict)
 * and then proves at its true rate, or fails, or dies. The learning fleet sees only what it
 * measures: benchmark rates, hourly production, failures. The spec-only fleet ranks by the
 * model and never learns; the oracle ranks by the truth and never rents a bad machine.
 */
// shape-exception: one simulation loop whose steps share the market's state
export function simulateEconomy(market: HiddenMarket, options: EconomyOptions): EconomyResult {
  const random = seededRandom(market.seed * 7919 + 13);
  const hours = options.hours ?? 24;
  const stepH = (options.stepMinutes ?? 5) / 60;
  const target = options.target ?? { proofsPerHour: 300 };
  const minProofsPerHour = options.minProofsPerHour ?? 40;
  const benchmarkProofs = options.benchmarkProofs ?? 12;
  const { policy } = options;
  const emit = options.onEvent ?? (() => {});

  const machines = new Map<number, MachineMeasurements>();
  const hosts = new Map<number, { attempts: number; failures: number }>();
  const samples: RateSample[] = [];
  const rented = new Set<number>();
  const rentals: Rental[] = [];
  let dollars = 0;
  let proofs = 0;
  let rentalCount = 0;
  let keptCount = 0;
  let seq = 0;

  const machineOf = (o: HiddenOffer) => {
    const id = o.candidate.machineId as number;
    let m = machines.get(id);
    if (m === undefined) {
      m = { runsProofsPerHour: [], excludedReason: undefined };
      machines.set(id, m);
    }
    return m;
  };
  const hostOf = (o: HiddenOffer) => {
    const id = o.candidate.hostId as number;
    const h = hosts.get(id) ?? { attempts: 0, failures: 0 };
    hosts.set(id, h);
    return h;
  };
  const measure = (o: HiddenOffer, rate: number) => {
    const m = machineOf(o);
    m.runsProofsPerHour.push(rate);
    samples.push({
      classKey: o.candidate.classKey,
      machineId: o.candidate.machineId,
      measuredProofsPerHour: rate,
      predictedProofsPerHour: o.candidate.predictedProofsPerHour,
    });
  };
  const end = (r: Rental, atH: number, kind: EconomyEvent["kind"], reason: string) => {
    rentals.splice(rentals.indexOf(r), 1);
    rented.delete(r.offer.candidate.offerId);
    emit({ atHours: atH, kind, offerId: r.offer.candidate.offerId, reason });
  };

  /** Vetting time: parameters over the network, the daemon's warmup, the benchmark. */
  const vettingHours = (o: HiddenOffer) => {
    const params = 0.35 + 0.1 * random();
    const warmup = 0.2;
    // The early verdict stops a clearly slow machine after about a third of the proofs.
    const proofsRun =
      o.trueProofsPerHour < 0.7 * minProofsPerHour ? Math.ceil(benchmarkProofs / 3) : benchmarkProofs;
    return params + warmup + proofsRun / Math.max(o.trueProofsPerHour, 1);
  };

  const truthCandidate = (o: HiddenOffer): RankCandidate => ({
    ...o.candidate,
    predictedProofsPerHour: o.trueProofsPerHour,
  });

  for (let now = 0; now < hours - 1e-9; now += stepH) {
    // 1. Outcomes of this step.
    for (const r of [...rentals]) {
      const o = r.offer;
      const age = now - r.rentedAtH;
      if (o.quirk === "flaky" && o.diesAfterHours !== undefined && age >= o.diesAfterHours) {
        machineOf(o).excludedReason = "the host died";
        hostOf(o).failures += 1;
        end(r, now, "died", `the instance exited after ${age.toFixed(1)} h`);
        continue;
      }
      if (r.stage === "vetting" && now >= r.verdictAtH) {
        if (o.quirk === "never-params") {
          machineOf(o).excludedReason = "FAILED: the parameters never finished";
          hostOf(o).failures += 1;
          end(r, now, "failed", "params deadline passed");
          continue;
        }
        const rate = o.trueProofsPerHour * Math.exp(0.03 * gaussian(random));
        measure(o, rate);
        if (rate < minProofsPerHour) {
          end(r, now, "rejected", `BELOW: ${rate.toFixed(1)} proofs/hour < ${minProofsPerHour}`);
          continue;
        }
        r.stage = "active";
        r.measured = rate;
        keptCount += 1;
        emit({
          atHours: now,
          kind: "kept",
          offerId: o.candidate.offerId,
          reason: `MET: ${rate.toFixed(1)} proofs/hour`,
        });
      }
    }
    // 2. Decisions.
    let knowledge: RankingKnowledge = noKnowledge;
    if (policy === "learning") knowledge = { calibration: learnCalibration(samples), machines, hosts };
    else if (policy === "spec-only")
      knowledge = {
        calibration: new Map(),
        machines: excludedOnly(machines, minProofsPerHour),
        hosts: new Map(),
      };
    const available = market.offers.filter((o) => !rented.has(o.candidate.offerId));
    const candidates =
      policy === "oracle"
        ? available.filter((o) => o.quirk !== "flaky" && o.quirk !== "never-params").map(truthCandidate)
        : available.map((o) => o.candidate);
    const { ranked } = rankCandidates(candidates, knowledge, {
      minProofsPerHour,
      optimism: policy === "learning" ? 1 : 0,
    });
    const members: FleetMember[] = rentals.map((r) => ({
      instanceId: r.id,
      stage: r.stage,
      dphPerHour: r.offer.candidate.dphTotal,
      proofsPerHour:
        policy === "spec-only"
          ? r.offer.candidate.predictedProofsPerHour
          : r.stage === "active"
            ? (r.measured as number)
            : r.estimate,
    }));
    const decisions: FleetDecision[] = planFleetStep({
      members,
      ranked,
      target,
      maxDph: options.maxDph,
      replaceMargin: policy === "learning" ? 1.25 : Number.POSITIVE_INFINITY,
    });
    for (const d of decisions) {
      if (d.action === "destroy") {
        const r = rentals.find((x) => x.id === d.instanceId);
        if (r !== undefined) end(r, now, "destroy", d.reason);
        continue;
      }
      const o = market.offers.find((x) => x.candidate.offerId === d.offerId) as HiddenOffer;
      seq += 1;
      rentalCount += 1;
      hostOf(o).attempts += 1;
      rented.add(o.candidate.offerId);
      rentals.push({
        id: `r${seq}`,
        offer: o,
        rentedAtH: now,
        stage: "vetting",
        verdictAtH: now + (o.quirk === "never-params" ? 1 : vettingHours(o)),
        estimate: d.candidate.estimateProofsPerHour,
        measured: undefined,
      });
      emit({ atHours: now, kind: "rent", offerId: o.candidate.offerId, reason: d.reason });
    }
    // 3. Bills and production of the step.
    for (const r of rentals) {
      dollars += r.offer.candidate.dphTotal * stepH;
      if (r.stage === "active") proofs += r.offer.trueProofsPerHour * stepH;
    }
    // 4. Hourly production reports feed the learning fleet.
    if (policy === "learning" && Math.abs((now + stepH) % 1) < stepH / 2) {
      for (const r of rentals)
        if (r.stage === "active")
          measure(r.offer, r.offer.trueProofsPerHour * Math.exp(0.02 * gaussian(random)));
    }
  }
  return {
    policy,
    dollars,
    proofs,
    costPer1000: proofs > 0 ? (dollars * 1000) / proofs : Number.POSITIVE_INFINITY,
    rentals: rentalCount,
    kept: keptCount,
    knowledge: { calibration: learnCalibration(samples), machines, hosts },
    samples,
  };
}

/** The manager's own exclusions (failed, unstable, below the minimum) without the measured rates. */
function excludedOnly(
  machines: ReadonlyMap<number, MachineMeasurements>,
  minProofsPerHour: number,
): Map<number, MachineMeasurements> {
  const out = new Map<number, MachineMeasurements>();
  for (const [id, m] of machines) {
    const below = m.runsProofsPerHour.some((r) => r < minProofsPerHour);
    if (m.excludedReason !== undefined || below) {
      out.set(id, { runsProofsPerHour: [], excludedReason: m.excludedReason ?? "rejected by its benchmark" });
    }
  }
  return out;
}

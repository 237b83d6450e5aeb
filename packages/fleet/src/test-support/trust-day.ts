import type { DemoOffer } from "../demo/demo-market.js";
import { vastOfferRecord } from "../demo/demo-market.js";
import type { FleetMember } from "../economics/run-planner.js";
import { fleetMembers, runFleetStep } from "../manager/fleet-run.js";
import type { ProofRecord } from "../protocol/requests.js";
import { type HiddenOffer, hiddenMarket, seededRandom } from "../testing/hidden-truth.js";
import { startTestFleet, type TestFleet } from "./test-fleet.js";

// A day of the real manager (its store, keep rule, planner and monitor; a fake Vast API; a
// manual clock) on a market where some hosts lie. The agents are simulated in-process and
// call the manager's agent handlers as the HTTP layer would. Liars send what a hostile host
// can send with the agent's token: any verdict, any rate, any proof records, any throughput.

/** What a simulated host does with the reports its agent sends. */
export type HostBehaviour =
  /** Reports what it measured. */
  | "honest"
  /** MET at 1e300 proofs/hour with no proof records, and production at the same rate. */
  | "absurd"
  /** Honest proof records, but a claimed rate 5-80x what they add up to; production inflated alike. */
  | "inconsistent"
  /** Honest, then throttles to 0.6x after 2-5 hours of serving. */
  | "degrades";

/** One host of the trust market. */
export interface TrustHost {
  offer: HiddenOffer;
  behaviour: HostBehaviour;
  /** The factor a liar multiplies its rates by (1 for honest hosts). */
  claimFactor: number;
  /** For `degrades`: hours of serving before it throttles. */
  degradesAfterHours: number | undefined;
}

/** Options of {@link runTrustDay}. */
export interface TrustDayOptions {
  /** Simulated hours. Default 24. */
  hours?: number | undefined;
  /** Hours before the delivered share is counted (the first machines vet). Default 3. */
  warmupHours?: number | undefined;
  /** Fleet target, proofs/hour. Default 300. */
  targetProofsPerHour?: number | undefined;
  /** Share of hosts that lie (absurd or inconsistent). Default 0.2. */
  liarShare?: number | undefined;
  /** Share of honest hosts that degrade after hours. Default 0.15. */
  degraderShare?: number | undefined;
  /** Offers on the market. Default 40. */
  offers?: number | undefined;
}

/** What a trust day measured. */
export interface TrustDayResult {
  seed: number;
  /** Lying hosts rented (their claim reached the manager). */
  liarsRented: number;
  /** Lying hosts the planner counted, at any step, at 90% of their claim or more (target 0). */
  liesKeptAtClaim: number;
  /** Lying hosts the planner counted, at any step, above 1.25x their true rate. */
  liarsOvercounted: number;
  /** Hosts that throttled while serving. */
  degraded: number;
  /** Degraded hosts the planner still counted at their pre-throttle rate two hours after the throttle. */
  degradedStillOvercounted: number;
  /** True proofs delivered over the target's, step by step after the warm-up, capped at 1 per step. */
  deliveredShare: number;
  /** What the planner believed it delivered over the target's, after the warm-up, capped at 1 per step. */
  believedShare: number;
  /** Rentals, all hosts. */
  rentals: number;
  /** Dollars billed. */
  dollars: number;
}

const stepMs = 10 * 60_000;

/** The trust market of a seed: the hidden market's working offers, some of them liars or degraders. */
export function trustMarket(seed: number, options: TrustDayOptions = {}): TrustHost[] {
  const random = seededRandom(seed * 7919 + 17);
  const liarShare = options.liarShare ?? 0.2;
  const degraderShare = options.degraderShare ?? 0.15;
  const offers = hiddenMarket(seed, { offers: options.offers ?? 40 }).offers.filter(
    (o) => o.candidate.feasible && o.quirk !== "never-params" && o.quirk !== "flaky",
  );
  // Exact shares, placed at random: every market has each behaviour in its stated share.
  const liars = Math.round(offers.length * liarShare);
  const degraders = Math.round(offers.length * degraderShare);
  const roles: HostBehaviour[] = offers.map((_, i) =>
    i < liars / 2 ? "absurd" : i < liars ? "inconsistent" : i < liars + degraders ? "degrades" : "honest",
  );
  for (let i = roles.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [roles[i], roles[j]] = [roles[j] as HostBehaviour, roles[i] as HostBehaviour];
  }
  return offers.map((offer, i) => {
    const behaviour = roles[i] as HostBehaviour;
    return {
      offer,
      behaviour,
      claimFactor: behaviour === "absurd" ? 1e300 : behaviour === "inconsistent" ? 5 + random() * 75 : 1,
      degradesAfterHours: behaviour === "degrades" ? 2 + random() * 3 : undefined,
    };
  });
}

/** The hidden offer in the shape the fake Vast server lists. */
function asDemoOffer(offer: HiddenOffer): DemoOffer {
  // hiddenMarket gives every offer its machine and host.
  const { machineId, hostId } = offer.candidate as { machineId: number; hostId: number };
  return {
    offerId: offer.candidate.offerId,
    machineId,
    hostId,
    gpuName: offer.gpuName,
    numGpus: offer.numGpus,
    ramGib: offer.ramGib,
    cpuCores: offer.cpuCores,
    cpuName: offer.cpuName,
    dphTotal: offer.candidate.dphTotal,
    predictedProofsPerHour: offer.candidate.predictedProofsPerHour,
    classKey: offer.candidate.classKey,
    quirk: "none",
    classBias: 1,
    trueFactor: offer.trueFactor,
    diesAfterHours: undefined,
  };
}

/**
 * Timed proof records of a benchmark at `proofsPerHour` with `concurrency` proofs in flight:
 * what an honest agent sends (submitted and settled on its clock, the window the proofs fill).
 */
export function benchmarkRecords(
  proofsPerHour: number,
  count: number,
  endMs: number,
  concurrency = 2,
): ProofRecord[] {
  const wallMs = Math.round((concurrency * 3_600_000) / proofsPerHour);
  const spacingMs = wallMs / concurrency;
  const startOf = (i: number) => Math.round(endMs - wallMs - (count - 1 - i) * spacingMs);
  return Array.from({ length: count }, (_, i) => ({
    index: i + 1,
    warmup: false,
    ok: true,
    wallMs,
    submitMs: startOf(i),
    settleMs: startOf(i) + wallMs,
  }));
}

interface Rental {
  host: TrustHost;
  rentedAtMs: number;
  reported: boolean;
  servingSinceMs: number | undefined;
  throttledAtMs: number | undefined;
  carryProofs: number;
  /** The benchmark rate the host claimed, once it reported. */
  claimedProofsPerHour: number | undefined;
}

/** Runs one simulated day; see {@link TrustDayResult} for what it measures. */
export async function runTrustDay(seed: number, options: TrustDayOptions = {}): Promise<TrustDayResult> {
  const hosts = trustMarket(seed, options);
  const fleet: TestFleet = await startTestFleet({
    config: { minProofsPerHour: 40, benchmarkProofs: 12 },
    fake: { offers: hosts.map((h) => vastOfferRecord(asDemoOffer(h.offer))) },
  });
  const day: TrustDay = {
    fleet,
    target: options.targetProofsPerHour ?? 300,
    byOffer: new Map(hosts.map((h) => [h.offer.candidate.offerId, h])),
    rentals: new Map(),
    overcountedLiars: new Set(),
    keptAtClaim: new Set(),
    degradedLate: new Set(),
    deliveredSum: 0,
    believedSum: 0,
    targetSum: 0,
    dollars: 0,
  };
  const hours = options.hours ?? 24;
  const warmupHours = options.warmupHours ?? 3;
  const { manager, clock } = fleet;
  const startMs = clock.now();
  try {
    for (let t = 0; t < hours * 3_600_000; t += stepMs) {
      await runFleetStep(manager, { target: { proofsPerHour: day.target }, maxVetting: 3 });
      await trackRentals(day, clock.now());
      clock.advance(stepMs);
      const after = clock.now();
      const { delivered, believed } = await serveStep(day, after);
      await heartbeatVetting(day);
      await manager.monitor();
      if (after - startMs > warmupHours * 3_600_000) {
        day.deliveredSum += Math.min(delivered, day.target);
        day.believedSum += Math.min(believed, day.target);
        day.targetSum += day.target;
      }
    }
    return trustDayResult(seed, day);
  } finally {
    await fleet.close();
  }
}

/** One trust day's state: the rentals the manager made and what the planner was seen to count. */
interface TrustDay {
  fleet: TestFleet;
  /** Fleet target, proofs/hour. */
  target: number;
  byOffer: Map<number, TrustHost>;
  rentals: Map<string, Rental>;
  overcountedLiars: Set<string>;
  keptAtClaim: Set<string>;
  degradedLate: Set<string>;
  deliveredSum: number;
  believedSum: number;
  targetSum: number;
  dollars: number;
}

/** Notes the manager's new rentals and moves each vetting one a phase on. */
async function trackRentals(day: TrustDay, now: number): Promise<void> {
  for (const record of await day.fleet.manager.store.list()) {
    const host = day.byOffer.get(record.offerId);
    if (host === undefined) continue;
    let rental = day.rentals.get(record.id);
    if (rental === undefined && record.state !== "destroyed") {
      rental = {
        host,
        rentedAtMs: now,
        reported: false,
        servingSinceMs: undefined,
        throttledAtMs: undefined,
        carryProofs: 0,
        claimedProofsPerHour: undefined,
      };
      day.rentals.set(record.id, rental);
    }
    if (rental === undefined) continue;
    await advanceVetting(day.fleet, record.id, record.state, rental, now);
  }
}

/**
 * Production and heartbeats of what serves, with the bills of the step; notes where the planner
 * counts a liar or a degraded host above its truth. Returns the step's true and believed rates.
 */
async function serveStep(day: TrustDay, after: number): Promise<{ delivered: number; believed: number }> {
  const { manager } = day.fleet;
  let delivered = 0;
  let believed = 0;
  const members = new Map<string, FleetMember>((await fleetMembers(manager)).map((m) => [m.instanceId, m]));
  for (const record of await manager.store.list()) {
    const rental = day.rentals.get(record.id);
    if (rental === undefined) continue;
    if (record.state !== "destroyed" && record.state !== "planned")
      day.dollars += (record.dphPerHour * stepMs) / 3_600_000;
    if (record.state !== "active") continue;
    rental.servingSinceMs ??= after - stepMs;
    const trueRate = trueRateOf(rental, after);
    delivered += trueRate;
    const claimedRate = trueRate * rental.host.claimFactor;
    const produced = (claimedRate * stepMs) / 3_600_000 + rental.carryProofs;
    const whole = Math.min(1_000_000, Math.floor(produced));
    rental.carryProofs = produced - Math.floor(produced);
    await manager.agent.heartbeat(record.id).catch(() => {});
    await manager.agent.throughput(record.id, { proofs: whole, windowMs: stepMs }).catch(() => {});
    const counted = members.get(record.id)?.proofsPerHour ?? 0;
    believed += counted;
    noteOvercount(day, record.id, rental, counted, trueRate, claimedRate, after);
  }
  return { delivered, believed };
}

function noteOvercount(
  day: TrustDay,
  id: string,
  rental: Rental,
  counted: number,
  trueRate: number,
  claimedRate: number,
  after: number,
): void {
  if (rental.host.behaviour === "absurd" || rental.host.behaviour === "inconsistent") {
    if (counted >= 0.9 * (rental.claimedProofsPerHour ?? claimedRate)) day.keptAtClaim.add(id);
    if (counted > 1.25 * trueRate) day.overcountedLiars.add(id);
  }
  if (
    rental.throttledAtMs !== undefined &&
    after - rental.throttledAtMs >= 2 * 3_600_000 &&
    counted > 1.25 * trueRate
  ) {
    day.degradedLate.add(id);
  }
}

/** Heartbeats of the machines still vetting, so the monitor sees them alive. */
async function heartbeatVetting(day: TrustDay): Promise<void> {
  const { manager } = day.fleet;
  for (const record of await manager.store.list()) {
    if (["registered", "params", "warmup", "benchmarking"].includes(record.state)) {
      await manager.agent.heartbeat(record.id).catch(() => {});
    }
  }
}

function trustDayResult(seed: number, day: TrustDay): TrustDayResult {
  const rentals = [...day.rentals.values()];
  const liars = rentals.filter((r) => r.host.behaviour === "absurd" || r.host.behaviour === "inconsistent");
  return {
    seed,
    liarsRented: liars.filter((r) => r.reported).length,
    liesKeptAtClaim: day.keptAtClaim.size,
    liarsOvercounted: day.overcountedLiars.size,
    degraded: rentals.filter((r) => r.throttledAtMs !== undefined).length,
    degradedStillOvercounted: day.degradedLate.size,
    deliveredShare: day.targetSum === 0 ? 0 : day.deliveredSum / day.targetSum,
    believedShare: day.targetSum === 0 ? 0 : day.believedSum / day.targetSum,
    rentals: day.rentals.size,
    dollars: day.dollars,
  };
}

/** The host's true rate now: its hidden rate, throttled to 0.6x once a degrader's hours are up. */
function trueRateOf(rental: Rental, nowMs: number): number {
  const base = rental.host.offer.trueProofsPerHour;
  const after = rental.host.degradesAfterHours;
  if (after === undefined || rental.servingSinceMs === undefined) return base;
  const throttleAt = rental.servingSinceMs + after * 3_600_000;
  if (nowMs < throttleAt) return base;
  rental.throttledAtMs ??= throttleAt;
  return base * 0.6;
}

/**
 * One step of a simulated agent's vetting: register, then one phase per step (each well inside
 * its deadline), then the host's final report: about 40 simulated minutes from rent to report.
 */
async function advanceVetting(
  fleet: TestFleet,
  id: string,
  state: string,
  rental: Rental,
  nowMs: number,
): Promise<void> {
  const agent = fleet.manager.agent;
  const host = rental.host;
  try {
    if (state === "booting") {
      await agent.register(id, { agentVersion: "0.1.0" });
      await agent.phase(id, { phase: "params" });
    } else if (state === "params") {
      await agent.phase(id, { phase: "warmup" });
    } else if (state === "warmup") {
      await agent.phase(id, { phase: "benchmarking" });
    } else if (state === "benchmarking") {
      const measured = host.offer.trueProofsPerHour;
      const records = host.behaviour === "absurd" ? [] : benchmarkRecords(measured, 12, nowMs);
      const claimed = host.behaviour === "absurd" ? 1e300 : measured * host.claimFactor;
      rental.reported = true;
      rental.claimedProofsPerHour = claimed;
      await agent.report(id, {
        verdict: claimed >= 40 || host.behaviour !== "honest" ? "MET" : "BELOW",
        proofsPerHour: claimed,
        proofs: records,
      });
    }
  } catch (e) {
    if (process.env.TRUST_DEBUG) console.error(id, state, e);
    // A refused call is the manager's answer; the next step sees the state it left.
  }
}

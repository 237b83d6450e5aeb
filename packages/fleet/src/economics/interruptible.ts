import type { InstanceRecord } from "../store/records.js";

// Interruptible (spot) rentals. Vast rents an offer interruptibly when the create carries a bid
// (`price`, $/hour); a higher bid later stops ("outbids") the instance: Vast moves it to
// `stopped`, not destroyed, and it keeps paying storage (docs: "Interruptible instances";
// dstack detects outbid as a stopped instance nobody asked to stop). A preemption throws away
// the rental's setup (image, 47 GiB of parameters, warmup, benchmark): that is its cost, and the
// ranking prices it in.

/** How an offer is rented: its price and, for an interruptible rental, the bid sent. */
export interface RentalPricing {
  /** What the rental costs, $/hour: the bid when interruptible, else the on-demand price. */
  dphTotal: number;
  /** The bid sent with the create, $/hour; undefined for on-demand. */
  bidPricePerHour: number | undefined;
}

/**
 * The price the fleet rents an offer at. With `bidFactor` (interruptible rentals allowed), an
 * offer with a minimum bid is bid at `minBid x bidFactor` when that is below its on-demand price;
 * otherwise (no bid factor, no minimum bid, or a bid that would not save) it is on-demand.
 */
export function rentalPricing(
  offer: { dphTotal: number; minBid: number | undefined },
  bidFactor: number | undefined,
): RentalPricing {
  if (bidFactor === undefined || offer.minBid === undefined || !(offer.minBid > 0)) {
    return { dphTotal: offer.dphTotal, bidPricePerHour: undefined };
  }
  // Cents matter to the bid, not beyond: Vast's prices are quoted to 1/1000 $.
  const bid = Math.ceil(offer.minBid * bidFactor * 1000) / 1000;
  if (bid >= offer.dphTotal) return { dphTotal: offer.dphTotal, bidPricePerHour: undefined };
  return { dphTotal: bid, bidPricePerHour: bid };
}

/**
 * A rental's setup before it proves, hours, where the caller has no better figure: the image,
 * 47 GiB of parameters at a typical listing's bandwidth, the warmup and a 12-proof benchmark.
 */
export const interruptibleSetupHours = 1;

/** The preemption rate assumed before the fleet has interruptible history: one per 20 rented hours. */
export const priorPreemptionsPerHour = 0.05;
/** How many hours the prior weighs, against the fleet's own interruptible hours. */
const priorHours = 20;

/**
 * Preemptions per rented hour of the fleet's interruptible rentals: its preempted rentals over
 * their hours (from rent to end, or to `now` when alive), shrunk toward the prior by 20 hours of
 * it, so one early preemption does not swing the ranking and a long quiet history brings it down.
 */
export function learnPreemptionRate(
  instances: readonly Pick<
    InstanceRecord,
    "offer" | "state" | "reason" | "createdAt" | "updatedAt" | "lastHeartbeatAt"
  >[],
  rentedHours: (instance: (typeof instances)[number]) => number,
): number {
  let hours = 0;
  let preemptions = 0;
  for (const i of instances) {
    if (i.offer.bidPricePerHour === undefined) continue;
    hours += Math.max(0, rentedHours(i));
    if (i.reason?.startsWith("preempted") === true) preemptions++;
  }
  return shrunkPreemptionRate(preemptions, hours);
}

/** Preemptions over interruptible hours, shrunk toward the prior by 20 hours of it. */
export function shrunkPreemptionRate(preemptions: number, hours: number): number {
  return (preemptions + priorPreemptionsPerHour * priorHours) / (Math.max(0, hours) + priorHours);
}

/**
 * The share of an interruptible rental's paid hours that prove. Outbids come at a steady rate
 * `r` (memoryless), and a rental proves only after its `setupHours` S: it lives 1/r hours on
 * average and proves E[max(0, L - S)] = e^(-rS)/r of them, so the share is e^(-rS) (about
 * 1 - rS while preemptions are rare; a rental outbid before its setup ends proved nothing).
 */
export function preemptionShare(preemptionsPerHour: number, setupHours: number): number {
  return Math.exp(-Math.max(0, preemptionsPerHour) * Math.max(0, setupHours));
}

/** True when Vast's view of an interruptible instance says it was outbid: stopped, and not by us. */
export function isPreempted(
  record: Pick<InstanceRecord, "offer">,
  vast: { actualStatus: string | null; intendedStatus: string | undefined; curState: string | undefined },
): boolean {
  if (record.offer.bidPricePerHour === undefined) return false;
  // The fleet never stops an instance (it destroys), so a stopped interruptible one was outbid.
  return vast.actualStatus === "stopped" || vast.curState === "stopped" || vast.intendedStatus === "stopped";
}

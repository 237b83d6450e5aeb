import { startFleetDay } from "./fleet-day-state.js";
import { billStep, decideStep, reportProduction, settleOutcomes } from "./fleet-day-steps.js";
import type { FleetDayOptions, FleetDayResult } from "./fleet-day-types.js";
import type { MovingMarket } from "./moving-market.js";

export {
  defaultFleetDayPriors,
  type FleetDayOptions,
  type FleetDayPolicy,
  type FleetDayPriors,
  type FleetDayResult,
  type FleetDayRules,
} from "./fleet-day-types.js";

/**
 * A day of a fleet on a market that moves ({@link movingMarket}), in process: the fleet's own
 * ranking, calibration and run planner decide; only the machines are simulated. Rentals pay the
 * listed price of their start, download parameters and warm up, benchmark (early verdict for a
 * clearly slow machine), then prove at the true rate (which degrades after hours kept where the
 * market says so) until destroyed or their host dies. The planner's target catches up: the rate
 * that finishes the day's work in the hours left (at least the target, at most 1.5 times).
 */
export function simulateFleetDay(market: MovingMarket, options: FleetDayOptions): FleetDayResult {
  const day = startFleetDay(market, options);
  for (let now = 0; now < day.hours - 1e-9; now += day.stepH) {
    settleOutcomes(day, now);
    decideStep(day, now);
    billStep(day);
    reportProduction(day, now);
  }
  return {
    log: day.log,
    policy: options.policy,
    dollars: day.dollars,
    proofs: day.proofs,
    rentals: day.rentalCount,
    deaths: day.fleet.deaths,
    preemptions: day.interruptible.preemptions,
    interruptibleHours: day.interruptible.hours,
    samples: day.samples,
    exposure: day.fleet,
  };
}

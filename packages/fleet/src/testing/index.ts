// @cuzkit/fleet/testing: kits to test the fleet on without renting anything (not for production
// use): a hidden-truth market behind a fake Vast.ai, machines that are real `cuzkit agent`
// processes in front of `cuzkit sim`, and the simulations the planner is judged by. The demos
// `cuzkit fleet demo` runs on them are @cuzkit/fleet/demo.
export {
  type EconomyEvent,
  type EconomyOptions,
  type EconomyPolicy,
  type EconomyResult,
  simulateEconomy,
} from "./economy-sim.js";
export {
  defaultFleetDayPriors,
  type FleetDayOptions,
  type FleetDayPolicy,
  type FleetDayPriors,
  type FleetDayResult,
  type FleetDayRules,
  simulateFleetDay,
} from "./fleet-day.js";
export {
  type FleetOracle,
  type FleetOracleOptions,
  fleetOracle,
  minCostCover,
  workConstantCost,
} from "./fleet-oracle.js";
export { type HiddenMarket, type HiddenOffer, type HiddenQuirk, hiddenMarket } from "./hidden-truth.js";
export {
  type CuzkitCommand,
  type MachineBehaviour,
  type Market,
  type MarketMachine,
  type MarketOptions,
  type MarketProduction,
  startMarket,
} from "./market.js";
export {
  type MarketScenario,
  type MovingMarket,
  type MovingOffer,
  marketScenarios,
  movingMarket,
} from "./moving-market.js";

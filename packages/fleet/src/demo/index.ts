// @cuzkit/fleet/demo: the markets `cuzkit fleet demo` runs (not for production use): a market
// of real agent processes with hidden truth, and the economics on a simulated one.
export { type DemoOffer, demoMarket } from "./demo-market.js";
export { type EconomyDemoOptions, type EconomyDemoSummary, runEconomyDemo } from "./economy-demo.js";
export {
  type DemoInstanceOutcome,
  type DemoProgress,
  type MarketDemoOptions,
  type MarketDemoSummary,
  runMarketDemo,
} from "./market-demo.js";

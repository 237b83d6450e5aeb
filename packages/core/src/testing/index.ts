// @cuzkit/core/testing: test kits for code built on cuzkit (not for production use).
export { createManualClock, type ManualClock } from "./manual-clock.js";

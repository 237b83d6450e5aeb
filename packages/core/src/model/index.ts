export * from "./constants.js";
export * from "./daemon-model.js";
export * from "./gpu-catalog.js";
export * from "./memory.js";
export * from "./timing.js";
export * from "./workload.js";

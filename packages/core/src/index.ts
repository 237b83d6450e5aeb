export * from "./bytes.js";
export * from "./daemon-config.js";
export * from "./errors.js";
export * from "./hardware.js";
export * from "./logger.js";
export * from "./model/index.js";
export * from "./time.js";
export * from "./vocabulary.js";

// cuzkit: the command line, also usable in-process (runCli) by scripts and tests.

export { type DemoOptions, type DemoProfile, type DemoResult, demoProfiles, runDemo } from "./demo.js";
export { type CliIO, CommandExit, processIO } from "./io.js";
export { runCli } from "./run-cli.js";
export { createSimSupervisor, type SimSupervisor, type SimSupervisorOptions } from "./sim-supervisor.js";

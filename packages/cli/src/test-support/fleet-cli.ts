// The `cuzkit fleet` command tests' harness: the fake Vast server, a store path in HOME, and the
// client set to sleep and pace nothing; `serve` returns at once instead of waiting for a signal.
import { join } from "node:path";
import { createFleetCommand, type FleetCommandDeps } from "../commands/fleet/index.js";
import { type FakeVastCli, startFakeVastCli, useEachTest } from "./fake-vast-cli.js";

/** The fake server, its HOME with a store path, and a runner of `cuzkit fleet ...args`. */
export interface FleetCli extends FakeVastCli<FleetCommandDeps> {
  /** The SQLite store's path in `home`. */
  db: string;
}

/** Starts the harness; `close()` it after each test. The fake's rate limits are off: these clients do not pace. */
export async function startFleetCli(): Promise<FleetCli> {
  const cli = await startFakeVastCli<FleetCommandDeps>({
    name: "fleet",
    command: (io, deps) =>
      createFleetCommand(io, {
        clientOptions: { sleep: async () => {}, rateLimit: false },
        untilStopped: async () => {},
        ...deps,
      }),
  });
  return { ...cli, db: join(cli.home, "fleet.db") };
}

/** A harness started before each test of the calling file, closed after it. */
export const useFleetCli = (): FleetCli => useEachTest(startFleetCli);

/** The fleet settings most tests pass: a throughput floor, the prover image and where agents report. */
export const fleetSettings = [
  "--min-proofs-per-hour",
  "40",
  "--image",
  "ghcr.io/example/prover:1",
  "--manager-url",
  "http://203.0.113.5:7320",
] as const;

// The `cuzkit vast` command tests' harness: the fake Vast server on a manual clock, and the
// client set to sleep on that clock, pace nothing and jitter predictably.
import { createManualClock, type ManualClock } from "@cuzkit/core/testing";
import type { FakeVastServerOptions } from "@cuzkit/vast/testing";
import { createVastCommand, type VastCommandDeps } from "../commands/vast/index.js";
import { type FakeVastCli, startFakeVastCli, useEachTest } from "./fake-vast-cli.js";

/** The fake server with its HOME, and a runner of `cuzkit vast ...args` against it. */
export interface VastCliHarness extends FakeVastCli<VastCommandDeps> {
  /** The manual clock the client sleeps on (and the server's rate limits read). */
  clock: ManualClock;
}

/**
 * Starts the harness. The fake's own rate limits are off unless `serverOptions` turn them on;
 * the client paces nothing unless a test passes `clientOptions.rateLimit`.
 */
export async function startVastCli(serverOptions: FakeVastServerOptions = {}): Promise<VastCliHarness> {
  const clock = createManualClock(1_000_000);
  const cli = await startFakeVastCli<VastCommandDeps>({
    name: "vast",
    server: { rateLimits: false, now: () => clock.now(), ...serverOptions },
    command: (io, deps) =>
      createVastCommand(io, {
        stdinIsTTY: false,
        ...deps,
        clientOptions: {
          sleep: clock.sleep,
          clock,
          rateLimit: false,
          random: () => 0.5,
          ...deps.clientOptions,
        },
      }),
  });
  return { ...cli, clock };
}

/** A harness started before each test of the calling file, closed after it. */
export const useVastCli = (): VastCliHarness => useEachTest(() => startVastCli());

/** Runs `use` on a harness of its own (for a test that needs other server options), closed after. */
export async function withVastCli<T>(
  serverOptions: FakeVastServerOptions,
  use: (cli: VastCliHarness) => Promise<T>,
): Promise<T> {
  const cli = await startVastCli(serverOptions);
  try {
    return await use(cli);
  } finally {
    await cli.close();
  }
}

// Shared set-up for tests that run the client against the fake server. Not exported.
import { createConsoleLogger } from "@cuzkit/core";
import { createManualClock } from "@cuzkit/core/testing";
import { createVastClient, type VastClient } from "./client.js";
import type { VastClientOptions } from "./options.js";
import {
  type FakeVastServer,
  type FakeVastServerOptions,
  startFakeVastServer,
} from "./testing/fake-vast-server.js";

/** A fake server, a client wired to it with a manual clock, and the captured log lines. */
export interface Harness {
  server: FakeVastServer;
  client: VastClient;
  clock: ReturnType<typeof createManualClock>;
  lines: string[];
}

/**
 * Starts a fake server and a client with a manual clock, jitter neutralised (random 0.5),
 * rate limiting off on both sides unless asked (the server on the same manual clock), an empty
 * environment and a home dir with no key files.
 */
export async function startHarness(
  serverOptions: FakeVastServerOptions = {},
  clientOptions: Partial<VastClientOptions> = {},
): Promise<Harness> {
  const clock = createManualClock(1_000_000);
  const server = await startFakeVastServer({ rateLimits: false, now: () => clock.now(), ...serverOptions });
  const lines: string[] = [];
  const client = createVastClient({
    apiKey: server.apiKey,
    baseUrl: server.url,
    clock,
    sleep: clock.sleep,
    random: () => 0.5,
    logger: createConsoleLogger("debug", (line) => lines.push(line)),
    env: {},
    homeDir: "/nonexistent-home-for-tests",
    rateLimit: false,
    ...clientOptions,
  });
  return { server, client, clock, lines };
}

/** Collects an async iterable. */
export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

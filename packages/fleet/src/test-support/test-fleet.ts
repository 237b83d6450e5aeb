import { silentLogger } from "@cuzkit/core";
import { createManualClock } from "@cuzkit/core/testing";
import { createVastClient } from "@cuzkit/vast";
import { type FakeVastServer, type FakeVastServerOptions, startFakeVastServer } from "@cuzkit/vast/testing";
import type { FastifyInstance } from "fastify";
import type { CurioLinkOptions } from "../curio/curio-link.js";
import type { FleetConfig } from "../manager/config.js";
import type { Checkpoint, FleetVast } from "../manager/context.js";
import { createFleetManager, type FleetManager } from "../manager/fleet-manager.js";
import type { DashboardOptions } from "../server/dashboard-routes.js";
import { buildFleetServer } from "../server/fleet-server.js";
import { openFleetStore } from "../store/open-fleet-store.js";
import type { WriterLease } from "../store/writer-lease.js";

/** A manager against the fake Vast server, with a manual clock and an in-memory (or given) store. */
export interface TestFleet {
  fake: FakeVastServer;
  manager: FleetManager;
  app: FastifyInstance;
  clock: ReturnType<typeof createManualClock>;
  /** The manager's writer lease, when `writerLease` was asked for. */
  lease: WriterLease | undefined;
  /**
   * A new manager on the same store, fake Vast and clock, as a restarted process would be (its
   * start time is the clock's now); `manager` and `app` stay the first one. `vast`: the Vast it
   * calls instead (a test's wrapper that holds an answer at a gate). Default: the fake's client.
   */
  restart(vast?: FleetVast): FleetManager;
  /** The agent token a deploy put into the instance's environment (read from the fake's create request). */
  tokenOf(instanceId: string): string;
  close(): Promise<void>;
}

/** Options of startTestFleet. */
export interface TestFleetOptions {
  config?: Partial<FleetConfig> | undefined;
  fake?: FakeVastServerOptions | undefined;
  /** SQLite path. Default ":memory:". */
  dbPath?: string | undefined;
  checkpoint?: Checkpoint | undefined;
  /** The Curio link (FleetManagerOptions.curio). Default: none. */
  curio?: CurioLinkOptions | undefined;
  /** Serve the dashboard and admin API too (the clock defaults to the test's manual clock). Default: not served. */
  dashboard?: Omit<DashboardOptions, "manager"> | undefined;
  /**
   * Hold the fleet's writer lease (on the manual clock, renewed by hand) and fence every write
   * with it, and serve as `fleet serve` does: writes answer 503 while it is not held. Default: no lease.
   */
  writerLease?: { holder?: string | undefined; periodMs?: number | undefined } | undefined;
  /** Secret values the server removes again from shipped log lines (FleetServerOptions.logSecrets). Default: none. */
  logSecrets?: readonly string[] | undefined;
}

/** A Vast client on the fake server that never waits: no sleeps, one quick retry, no rate limit. */
export function testVastClient(fake: Pick<FakeVastServer, "apiKey" | "url">) {
  return createVastClient({
    apiKey: fake.apiKey,
    baseUrl: fake.url,
    sleep: async () => {},
    retry: { retries: 1, minDelayMs: 0, maxDelayMs: 0 },
    rateLimit: false,
    createRecovery: { attempts: 1, delayMs: 0 },
  });
}

/** Starts the fake Vast server and a manager on it; the Vast client never waits (manual sleep). */
export async function startTestFleet(options: TestFleetOptions = {}): Promise<TestFleet> {
  // The manager here never waits between calls (manual sleep): the fake's own rate limits would refuse it.
  const fake = await startFakeVastServer({ rateLimits: false, ...options.fake });
  const clock = createManualClock(1_700_000_000_000);
  const store = openFleetStore({ path: options.dbPath ?? ":memory:", clock });
  const lease =
    options.writerLease === undefined
      ? undefined
      : store.writerLease({
          fleet: "test",
          clock,
          sleep: () => new Promise(() => {}),
          ...options.writerLease,
        });
  await lease?.acquireNow();
  const vast = testVastClient(fake);
  const startManager = (checkpoint: Checkpoint | undefined, managerVast: FleetVast = vast) =>
    createFleetManager({
      store: lease === undefined ? store : store.fencedBy(lease),
      vast: managerVast,
      clock,
      logger: silentLogger,
      random: () => 0.5,
      checkpoint,
      curio: options.curio,
      config: {
        fleet: "test",
        minProofsPerHour: 10,
        image: "ghcr.io/example/prover:1",
        managerUrl: "http://127.0.0.1:7320",
        // The harness's agents are in-process: loopback is their address.
        allowLoopbackManagerUrl: true,
        ...options.config,
      },
    });
  const manager = startManager(options.checkpoint);
  const dashboard = options.dashboard === undefined ? undefined : { clock, ...options.dashboard };
  const app = buildFleetServer({
    manager,
    dashboard,
    isLeader: lease === undefined ? undefined : () => lease.held,
    // An answer off its documented schema fails the test that provoked it.
    strictAnswers: true,
    logSecrets: () => options.logSecrets ?? [],
    now: () => clock.now(),
  });
  return {
    fake,
    manager,
    app,
    clock,
    lease,
    restart: (managerVast) => startManager(undefined, managerVast),
    tokenOf(instanceId) {
      for (const request of fake.requestsTo(/^\/api\/v0\/asks\/\d+\/$/, "PUT").reverse()) {
        const env = (request.body as { env?: Record<string, string> }).env ?? {};
        if (env.CUZKIT_INSTANCE_ID === instanceId && env.CUZKIT_FLEET_TOKEN) return env.CUZKIT_FLEET_TOKEN;
      }
      throw new Error(`no create request carried instance ${instanceId}`);
    },
    async close() {
      await manager.stop();
      await app.close();
      await lease?.release();
      await store.close();
      await fake.close();
    },
  };
}

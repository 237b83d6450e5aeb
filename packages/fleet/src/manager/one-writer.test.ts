import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { silentLogger, toCuzkitError } from "@cuzkit/core";
import { createManualClock } from "@cuzkit/core/testing";
import { type FakeVastServer, sampleOffers, startFakeVastServer } from "@cuzkit/vast/testing";
import { afterEach, describe, expect, it } from "vitest";
import type { LeaseHolding } from "../errors.js";
import { type InstanceState, isFinalState } from "../lifecycle.js";
import type { SqliteFleetStore } from "../store/fleet-store.js";
import { openFleetStore } from "../store/open-fleet-store.js";
import type { WriterLease } from "../store/writer-lease.js";
import { testVastClient } from "../test-support/test-fleet.js";
import { seededRandom } from "../testing/hidden-truth.js";
import type { FleetVast } from "./context.js";
import { createFleetManager, type FleetManager } from "./fleet-manager.js";
import { runFleetStep } from "./fleet-run.js";

// Two managers on one SQLite file, 20 seeded runs. Each manager has its own connection, writer
// lease and fenced store, as two `fleet run` processes would. A seeded scheduler interleaves
// their work at every Vast call (where a manager awaits the network, and the other may act):
// steps of either manager, agents' reports to either, renewals, and freezes (the holder misses
// its renewals for a whole period, so the other takes over in the middle of its step).
// Whatever the order: never more live instances than the target, never two rentals of one
// offer, and a refused manager names the holder.

const periodMs = 30_000;
const target = 3;
const createPath = /^\/api\/v0\/asks\/(\d+)\/$/;

/**
 * Runs actors one segment at a time: an actor runs until its next gate (a Vast call) or its
 * end, then the seeded random picks which waiting actor goes on. Only one runs at once, so the
 * interleaving is the seed's alone.
 */
function createTurns(random: () => number) {
  let running = 0;
  const waiting: (() => void)[] = [];
  const schedule = () => {
    if (running > 0 || waiting.length === 0) return;
    const [next] = waiting.splice(Math.floor(random() * waiting.length), 1);
    running++;
    next?.();
  };
  const gate = () =>
    new Promise<void>((resolve) => {
      waiting.push(resolve);
      running--;
      schedule();
    });
  return {
    gate,
    /** Starts `work` as an actor (it waits for its first turn). */
    async actor<T>(work: () => Promise<T>): Promise<T> {
      running++;
      await gate();
      try {
        return await work();
      } finally {
        running--;
        schedule();
      }
    },
  };
}

interface Writer {
  name: string;
  store: SqliteFleetStore;
  lease: WriterLease;
  manager: FleetManager;
}

const offers = () => {
  const model = sampleOffers().find((o) => o.id === 1002) as Record<string, unknown>;
  return Array.from({ length: 10 }, (_, i) => ({
    ...model,
    id: 3001 + i,
    machine_id: 6001 + i,
    host_id: 700 + i,
  }));
};

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function twoWriters(seed: number) {
  const random = seededRandom(seed);
  const turns = createTurns(random);
  const fake: FakeVastServer = await startFakeVastServer({ rateLimits: false, offers: offers() });
  cleanups.push(() => fake.close());
  const folder = mkdtempSync(join(tmpdir(), "cuzkit-one-writer-"));
  cleanups.push(async () => rmSync(folder, { recursive: true, force: true }));
  const path = join(folder, "fleet.db");
  const clock = createManualClock(1_700_000_000_000);
  const writer = (name: string): Writer => {
    const store = openFleetStore({ path, clock });
    cleanups.push(() => store.close());
    // Renewals are the scheduler's actions here, not a timer's.
    const lease = store.writerLease({
      fleet: "test",
      holder: name,
      periodMs,
      clock,
      sleep: () => new Promise(() => {}),
    });
    const client = testVastClient(fake);
    const gated =
      <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
      async (...args: A): Promise<R> => {
        await turns.gate();
        return call(...args);
      };
    const vast: FleetVast = {
      searchOffers: gated(client.searchOffers.bind(client)),
      createInstance: gated(client.createInstance.bind(client)),
      showInstance: gated(client.showInstance.bind(client)),
      listInstances: client.listInstances.bind(client), // an iterator; its pages are not gated
      destroyInstance: gated(client.destroyInstance.bind(client)),
    };
    const manager = createFleetManager({
      store: store.fencedBy(lease),
      vast,
      clock,
      logger: silentLogger,
      random: () => 0.5,
      config: {
        fleet: "test",
        minProofsPerHour: 40,
        image: "ghcr.io/example/prover:1",
        managerUrl: "http://127.0.0.1:7320",
        allowLoopbackManagerUrl: true,
      },
    });
    return { name, store, lease, manager };
  };
  return { random, turns, fake, clock, writers: [writer("manager-a"), writer("manager-b")] as const };
}

describe("two managers on one SQLite file", () => {
  // Counted over the seeds, to show the runs exercised what they claim (the last test).
  let refusals = 0;
  let fencedWrites = 0;
  let takeovers = 0;
  // One test per seed: each has the whole test timeout, and a failure names its seed.
  const seeds = Array.from({ length: 20 }, (_, i) => i + 1);
  it.each(seeds)(
    "seeded interleaving %i: at most the target, one rental per offer, and the refused one names the holder",
    async (seed) => {
      const { random, turns, fake, clock, writers } = await twoWriters(seed);
      const [a, b] = writers;
      const reader = a.store; // reads the same file
      const other = (w: Writer) => (w === a ? b : a);
      const holderNow = async () => (await a.lease.current()) as LeaseHolding;

      // As startFleetRun and runLeadership: one step of a manager at a time, and a manager that
      // lost the lease finishes its step before it tries to take the lease again.
      const stepping = new Map<Writer, number>([
        [a, 0],
        [b, 0],
      ]);
      // Each manager's `fleet run` step: follow (try to take the lease) unless it holds it.
      const step = async (w: Writer) => {
        if ((stepping.get(w) ?? 0) > 0) return;
        if (!w.lease.held) {
          const claim = await w.lease.claim();
          if (!claim.held) {
            refusals++;
            expect(claim.holding.holder, `seed ${seed}`).toBe(other(w).name);
            await expect(w.lease.acquireNow()).rejects.toMatchObject({
              code: "FLEET_LEASE_HELD",
              message: expect.stringContaining(other(w).name),
            });
            return;
          }
          if (claim.epoch > 1) takeovers++;
        }
        stepping.set(w, (stepping.get(w) ?? 0) + 1);
        const done = await runFleetStep(w.manager, {
          target: { instances: target },
          maxVetting: target,
        }).finally(() => stepping.set(w, (stepping.get(w) ?? 0) - 1));
        fencedWrites += done.skipped.filter((s) => s.code === "FLEET_LEASE_LOST").length;
      };
      // An agent reports to one of the two (its request may reach either manager's server).
      const agent = async (w: Writer) => {
        const live = (await reader.list()).filter((r) => !isFinalState(r.state) && r.state !== "destroying");
        const record = live[Math.floor(random() * live.length)];
        if (record === undefined) return;
        const id = record.id;
        const next: Partial<Record<InstanceState, () => Promise<unknown>>> = {
          booting: () => w.manager.agent.register(id, { agentVersion: "test" }),
          registered: () => w.manager.agent.phase(id, { phase: "params" }),
          params: () => w.manager.agent.phase(id, { phase: "warmup" }),
          warmup: () => w.manager.agent.phase(id, { phase: "benchmarking" }),
          // Below the keep rule: rejected and destroyed, so the planner rents a replacement.
          benchmarking: () => w.manager.agent.report(id, { verdict: "BELOW", proofsPerHour: 20, proofs: [] }),
        };
        try {
          await next[record.state]?.();
        } catch (error) {
          const code = toCuzkitError(error).code;
          if (code === "FLEET_LEASE_LOST") {
            fencedWrites++;
            expect((await holderNow()).holder).not.toBe(w.name);
          }
        }
      };
      const renew = async (w: Writer) => {
        if (w.lease.held) await w.lease.claim();
      };
      // The holder freezes: a whole period passes without its renewal.
      const freeze = async () => clock.advance(periodMs + 1);

      for (let round = 0; round < 8; round++) {
        const actions: (() => Promise<unknown>)[] = [];
        for (let n = 0; n < 4; n++) {
          const w = random() < 0.5 ? a : b;
          const pick = random();
          if (pick < 0.45) actions.push(() => step(w));
          else if (pick < 0.75) actions.push(() => agent(w));
          else if (pick < 0.9) actions.push(() => renew(w));
          else actions.push(freeze);
        }
        await Promise.all(actions.map((action) => turns.actor(action)));

        const rows = await reader.list();
        const live = rows.filter((r) => !isFinalState(r.state) && r.state !== "destroying");
        expect(live.length, `seed ${seed} round ${round}`).toBeLessThanOrEqual(target);
        expect(new Set(live.map((r) => r.offerId)).size, `seed ${seed}`).toBe(live.length);
        const creates = fake.requestsTo(createPath, "PUT").map((r) => r.path);
        expect(new Set(creates).size, `seed ${seed}: ${creates.join(" ")}`).toBe(creates.length);
        expect(fake.instances.size, `seed ${seed}`).toBeLessThanOrEqual(target);
      }
      for (const w of writers) await w.lease.release();
    },
  );

  it("the 20 interleavings exercised refusals, takeovers, and a frozen leader's writes refused", () => {
    expect(refusals).toBeGreaterThan(0);
    expect(takeovers).toBeGreaterThan(0);
    expect(fencedWrites).toBeGreaterThan(0);
  });
});

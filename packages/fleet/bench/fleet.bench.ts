// Manager overhead with 500 simulated instances: heartbeats/s and latency through the real
// HTTP server (token check, guarded write), one reconcile pass against a fake Vast holding
// 500 labelled instances, and the store's size after 10 000 events. Each figure is printed
// with a baseline measured in the same run. Then the trust section: simulated days of the real
// manager on markets where some hosts lie or degrade (see test-support/trust-day.ts). Run with
// `pnpm bench:fleet`; `TRUST_SEEDS=n` sets how many fresh seeds (default 6), 0 skips it.
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createVastClient } from "@cuzkit/vast";
import { startFakeVastServer } from "@cuzkit/vast/testing";
import { createFleetManager, openFleetStore, startFleetServer } from "../src/index.js";
import { instanceLabel } from "../src/manager/config.js";
import { testOffer, vetInStore } from "../src/test-support/fixtures.js";
import { runTrustDay, type TrustDayOptions, type TrustDayResult } from "../src/test-support/trust-day.js";
import { generateAgentToken, hashAgentToken } from "../src/tokens.js";

const instances = 500;
const loadSeconds = Number(process.env.BENCH_SECONDS ?? 5);
const inFlight = 8;
/** The paced load: 10x what 500 agents send at one heartbeat every 30 s. */
const pacedPerSecond = Math.ceil((instances / 30) * 10);

const dir = mkdtempSync(join(tmpdir(), "cuzkit-fleet-bench-"));
const dbPath = join(dir, "fleet.db");
const fake = await startFakeVastServer({ rateLimits: false }); // measures the manager, not Vast's pacing
const store = openFleetStore({ path: dbPath });
const vast = createVastClient({ apiKey: fake.apiKey, baseUrl: fake.url, rateLimit: false });
const manager = createFleetManager({
  store,
  vast,
  config: {
    fleet: "bench",
    minProofsPerHour: 40,
    image: "x",
    managerUrl: "http://127.0.0.1:1",
    allowLoopbackManagerUrl: true,
  },
});

// 500 active instances, each with a token, a row and a labelled Vast instance.
const agents: { id: string; token: string }[] = [];
for (let i = 0; i < instances; i++) {
  const id = `i-${i.toString(16).padStart(8, "0")}`;
  const token = generateAgentToken();
  const vastId = fake.addInstance({ label: instanceLabel("bench", id), actual_status: "running" });
  await store.plan({
    id,
    fleet: "bench",
    label: instanceLabel("bench", id),
    offer: testOffer(),
    deadlinesMs: {},
    tokenHash: hashAgentToken(token),
  });
  await vetInStore(store, id, { vastId });
  await store.decideBenchmark(
    id,
    {
      verdict: "MET",
      proofsPerHour: 48,
      minProofsPerHour: 40,
      machineId: 501,
      gpuName: "RTX 3090",
      numGpus: 2,
      report: {},
    },
    "active",
    "kept",
  );
  agents.push({ id, token });
}

const server = await startFleetServer({ manager, listen: "127.0.0.1:0" });

/** Posts as fast as `inFlight` workers allow for the load window; returns latencies (ms) and the rate. */
async function load(
  request: (i: number) => Promise<Response>,
): Promise<{ perSecond: number; latencies: number[]; errors: number }> {
  const latencies: number[] = [];
  let errors = 0;
  let next = 0;
  const endAt = performance.now() + loadSeconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (performance.now() < endAt) {
        const i = next++;
        const t0 = performance.now();
        const response = await request(i);
        await response.arrayBuffer();
        latencies.push(performance.now() - t0);
        if (!response.ok) errors++;
      }
    }),
  );
  return { perSecond: latencies.length / ((performance.now() - started) / 1000), latencies, errors };
}

/** Sends `perSecond` requests on a fixed schedule (open loop), so latency is not hidden by back-pressure. */
async function paced(perSecond: number, request: (i: number) => Promise<Response>) {
  const latencies: number[] = [];
  let errors = 0;
  const total = perSecond * loadSeconds;
  const started = performance.now();
  const pending: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / perSecond;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const t0 = performance.now();
    pending.push(
      request(i).then(async (response) => {
        await response.arrayBuffer();
        latencies.push(performance.now() - t0);
        if (!response.ok) errors++;
      }),
    );
  }
  await Promise.all(pending);
  return { perSecond: latencies.length / ((performance.now() - started) / 1000), latencies, errors };
}

const heartbeat = (i: number) => {
  const agent = agents[i % instances] as { id: string; token: string };
  return fetch(`${server.url}/v1/agent/${agent.id}/heartbeat`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${agent.token}` },
    body: JSON.stringify({ phase: "serving" }),
  });
};
const health = await load(() => fetch(`${server.url}/v1/health`));
const heartbeats = await load(heartbeat);
const pacedHealth = await paced(pacedPerSecond, () => fetch(`${server.url}/v1/health`));
const pacedHeartbeats = await paced(pacedPerSecond, heartbeat);

// The manager's own cost per heartbeat (auth, schema, guarded write), without sockets: Fastify inject.
async function injected(
  count: number,
  url: (i: number) => string,
  headers: (i: number) => Record<string, string>,
) {
  const latencies: number[] = [];
  for (let i = 0; i < count; i++) {
    const t0 = performance.now();
    const target = url(i);
    await server.app.inject(
      target.includes("health")
        ? { method: "GET", url: target }
        : { method: "POST", url: target, headers: headers(i), payload: { phase: "serving" } },
    );
    latencies.push(performance.now() - t0);
  }
  return latencies;
}
const injectedHealth = await injected(
  5_000,
  () => "/v1/health",
  () => ({}),
);
const injectedHeartbeats = await injected(
  5_000,
  (i) => `/v1/agent/${(agents[i % instances] as { id: string }).id}/heartbeat`,
  (i) => ({ authorization: `Bearer ${(agents[i % instances] as { token: string }).token}` }),
);

// One reconcile pass: 500 labelled instances, 20 pages of 25.
const listStarted = performance.now();
let listed = 0;
for await (const _ of vast.listInstances()) listed++;
const listMs = performance.now() - listStarted;
const reconcileStarted = performance.now();
const summary = await manager.reconcile();
const reconcileMs = performance.now() - reconcileStarted;

// Store size after 10 000 events (on top of the ~4 000 the setup wrote).
const eventsBefore = (await store.events({ limit: 1_000_000 })).length;
store.db.pragma("wal_checkpoint(TRUNCATE)");
const sizeBefore = statSync(dbPath).size;
const appendStarted = performance.now();
for (let i = 0; i < 10_000; i++) {
  await store.appendEvent((agents[i % instances] as { id: string }).id, "bench", {
    n: i,
    note: "an event of typical size",
  });
}
const appendMs = performance.now() - appendStarted;
store.db.pragma("wal_checkpoint(TRUNCATE)");
const sizeAfter = statSync(dbPath).size;

/** Nearest-rank percentile of an ascending list; `q` in [0, 1]. */
const percentile = (sorted: readonly number[], q: number) =>
  sorted.length === 0
    ? 0
    : (sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] as number);
const ms = (value: number) => `${value.toFixed(2)} ms`;
const p = (l: number[], q: number) =>
  percentile(
    [...l].sort((a, b) => a - b),
    q,
  );
const stats = (l: number[]) => `p50 ${ms(p(l, 0.5))}, p99 ${ms(p(l, 0.99))}`;
const lines = [
  `fleet manager, ${instances} instances, ${inFlight} requests in flight, ${loadSeconds} s per load`,
  `  GET /v1/health (baseline)   ${health.perSecond.toFixed(0)} req/s, ${stats(health.latencies)}`,
  `  POST heartbeat              ${heartbeats.perSecond.toFixed(0)} req/s, ${stats(heartbeats.latencies)}, ${heartbeats.errors} errors` +
    ` (${(heartbeats.perSecond / health.perSecond).toFixed(2)}x the baseline's rate; 500 agents at 30 s need ${(instances / 30).toFixed(1)}/s)`,
  `  paced ${pacedPerSecond}/s (10x 500 agents at 30 s):`,
  `    GET /v1/health (baseline) ${stats(pacedHealth.latencies)}`,
  `    POST heartbeat            ${stats(pacedHeartbeats.latencies)}, ${pacedHeartbeats.errors} errors;` +
    ` p99 target < 50 ms: ${p(pacedHeartbeats.latencies, 0.99) < 50 ? "met" : "MISSED"}`,
  `  in-process (Fastify inject, 5000 sequential): health ${stats(injectedHealth)}; heartbeat ${stats(injectedHeartbeats)}` +
    ` (p99 target < 50 ms: ${p(injectedHeartbeats, 0.99) < 50 ? "met" : "MISSED"})`,
  `  bare list of ${listed} instances (baseline)  ${ms(listMs)}`,
  `  reconcile pass (${summary.seen} seen)           ${ms(reconcileMs)} (${(reconcileMs / listMs).toFixed(2)}x the bare list; target < 2000 ms: ${reconcileMs < 2000 ? "met" : "MISSED"})`,
  `  store: ${eventsBefore} events -> ${eventsBefore + 10_000}: ${(sizeBefore / 2 ** 20).toFixed(2)} MB -> ${(sizeAfter / 2 ** 20).toFixed(2)} MB` +
    ` (${((sizeAfter - sizeBefore) / 10_000).toFixed(0)} bytes/event; 10 000 appends in ${ms(appendMs)})`,
];
process.stdout.write(`${lines.join("\n")}\n`);

await server.close();
await store.close();
await fake.close();
rmSync(dir, { recursive: true, force: true });

// Trust: seeds the tests never use (the test runs seed 3), each a fresh market with its own
// liars (absurd or inconsistent claims, inflated production) and hosts that throttle to 0.6x.
const trustSeeds = Number(process.env.TRUST_SEEDS ?? 6);
/** Runs `seeds` fresh days of one scenario and prints them with the targets' verdicts. */
async function trustScenario(title: string, first: number, seeds: number, options: TrustDayOptions) {
  const days: TrustDayResult[] = [];
  for (let i = 0; i < seeds; i++) days.push(await runTrustDay(first + i * 7, options));
  const sum = (f: (d: TrustDayResult) => number) => days.reduce((acc, d) => acc + f(d), 0);
  const worst = Math.min(...days.map((d) => d.deliveredShare));
  const mean = sum((d) => d.deliveredShare) / days.length;
  const trust = [
    `trust: ${title}, ${days.length} fresh seeds`,
    ...days.map(
      (d) =>
        `  seed ${d.seed}: ${d.rentals} rentals, ${d.liarsRented} liars reported, ${d.liesKeptAtClaim} kept at claim, ` +
        `${d.liarsOvercounted} overcounted; ${d.degraded} degraded (${d.degradedStillOvercounted} still overcounted after 2 h); ` +
        `delivered ${(d.deliveredShare * 100).toFixed(1)}% of target (the fleet believed ${(d.believedShare * 100).toFixed(1)}%), $${d.dollars.toFixed(2)}`,
    ),
    `  lies kept at their claim: ${sum((d) => d.liesKeptAtClaim)} of ${sum((d) => d.liarsRented)} (target 0: ${sum((d) => d.liesKeptAtClaim) === 0 ? "met" : "MISSED"})`,
    `  delivered share: mean ${(mean * 100).toFixed(1)}%, worst ${(worst * 100).toFixed(1)}% (target >= 98%: ${mean >= 0.98 ? "met" : "MISSED"})`,
  ];
  process.stdout.write(`${trust.join("\n")}\n`);
}
if (trustSeeds > 0) {
  await trustScenario("24 h, target 400 proofs/h, 20% liars, 15% degraders", 1001, trustSeeds, {
    targetProofsPerHour: 400,
  });
  // A market the policy was not shaped on: twice the liars, most honest hosts throttle, a
  // bigger target (more rentals, so more of them are met).
  await trustScenario(
    "stress, 24 h, target 700 proofs/h, 40% liars, 40% degraders",
    2003,
    Math.max(1, Math.ceil(trustSeeds / 2)),
    { targetProofsPerHour: 700, liarShare: 0.4, degraderShare: 0.4 },
  );
}

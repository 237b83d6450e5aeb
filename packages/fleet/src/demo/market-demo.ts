import { silentLogger } from "@cuzkit/core";
import { createVastClient } from "@cuzkit/vast";
import { type FakeVastServer, startFakeVastServer } from "@cuzkit/vast/testing";
import { knowledgeFromStore } from "../economics/knowledge.js";
import { createFleetManager, type FleetManager } from "../manager/fleet-manager.js";
import { startFleetRun } from "../manager/fleet-run.js";
import { type ListeningFleetServer, startFleetServer } from "../server/fleet-server.js";
import type { FleetStore } from "../store/fleet-store.js";
import { openFleetStore } from "../store/open-fleet-store.js";
import { type Market, type MarketMachine, startMarket } from "../testing/market.js";
import { type DemoOffer, demoBehaviour, demoMarket, vastOfferRecord } from "./demo-market.js";
import {
  costSummary,
  trueClassFactors,
  writeCalibration,
  writeOutcomes,
  writeRanking,
} from "./market-demo-report.js";
import type { DemoInstanceOutcome, MarketDemoOptions, MarketDemoSummary } from "./market-demo-types.js";

export type {
  DemoInstanceOutcome,
  DemoProgress,
  MarketDemoOptions,
  MarketDemoSummary,
} from "./market-demo-types.js";

/**
 * `cuzkit fleet demo`: the real fleet on a simulated market with hidden truth. A fake Vast
 * lists {@link demoMarket}'s offers; each rental becomes a real `cuzkit agent` process in front
 * of a `cuzkit sim` daemon running at the machine's true speed (the sims' time scale compresses
 * a simulated hour into 3.6 s); the real manager (HTTP server, SQLite, loops) and the `fleet
 * run` loop rent, vet, keep and destroy by what the agents measure. Kept machines are sent work
 * and report their production. Prints the ranking before and after, every decision with its
 * reason, how each machine ended and its hidden truth, the learnt calibration next to the
 * hidden class bias, and the $ per 1000 proofs achieved from the proofs counted.
 */
export async function runMarketDemo(options: MarketDemoOptions): Promise<MarketDemoSummary> {
  const demo = await openDemo(options);
  const { write, byOffer, store } = demo;
  try {
    const fleet = createDemoManager(demo);
    demo.manager = fleet;
    const market = startMarket(demo.fake, {
      cuzkit: options.cuzkit,
      timeScale: demo.timeScale,
      throughputEveryMs: 1_500,
      production: { request: options.request },
      behaviours: Object.fromEntries(demo.offers.map((o) => [o.offerId, demoBehaviour(o, demo.timeScale)])),
    });
    demo.market = market;

    write(
      `a simulated market of ${demo.offers.length} offers, ${demo.hours} simulated hours (1 hour = ${(3.6 * demo.timeScale * 1000).toFixed(1)} s), target ${demo.target.proofsPerHour} proofs/hour, minimum ${demo.minProofsPerHour}`,
    );
    write(
      "each rental is a real `cuzkit agent` in front of a `cuzkit sim` at the machine's hidden true speed\n",
    );
    const before = (await fleet.rankAll()).ranked;
    writeRanking(write, "ranking before any measurement (the model only):", before, byOffer);

    const decisions = await runDecisions(demo, fleet);
    const end = Date.now();

    const performance = await store.performance.list();
    const instances = await instanceOutcomes(demo, market, end);
    writeOutcomes(write, instances);

    // Rented offers too, so the kept machines show at their measurements.
    const ranking = await fleet.rankAll({ defaults: { rented: "any" } });
    const after = ranking.ranked;
    writeRanking(write, "\nranking after measurement (rented offers included):", after, byOffer);
    for (const e of ranking.excluded) write(`  ${e.offer.id}   left out: ${e.reason}`);

    const { calibration } = await knowledgeFromStore(store);
    const classTruth = trueClassFactors(instances);
    writeCalibration(write, calibration, classTruth);
    return {
      offers: demo.offers,
      before,
      after,
      decisions,
      instances,
      calibration,
      classTruth,
      performance,
      ...costSummary(write, performance, instances),
      marketCompletedProofs: [...market.machines.values()].reduce((sum, m) => sum + m.completedProofs, 0),
    };
  } finally {
    await closeDemo(demo);
  }
}

/** The demo's context: its settings, the market it tells of, and what must be stopped at the end. */
interface MarketDemo {
  options: MarketDemoOptions;
  timeScale: number;
  hours: number;
  write: (line: string) => void;
  /** Real ms to simulated hours. */
  toHours: (realMs: number) => number;
  offers: DemoOffer[];
  byOffer: Map<number, DemoOffer>;
  minProofsPerHour: number;
  target: { proofsPerHour: number };
  fake: FakeVastServer;
  store: FleetStore;
  server: ListeningFleetServer;
  manager: FleetManager | undefined;
  market: Market | undefined;
  stopLoops: (() => Promise<void>) | undefined;
  stopRun: (() => Promise<void>) | undefined;
}

/** Starts the fake Vast, the store and the fleet server (before the manager: agents need its URL). */
async function openDemo(options: MarketDemoOptions): Promise<MarketDemo> {
  const timeScale = options.timeScale ?? 0.001;
  const offers = demoMarket(options.seed ?? 1);
  const fake = await startFakeVastServer({ rateLimits: false, offers: offers.map(vastOfferRecord) });
  const store = openFleetStore({ path: ":memory:" });
  // Agents need the manager's URL before the manager exists: serve on port 0, then forward.
  let demo: MarketDemo | undefined;
  const forward = new Proxy({} as FleetManager, {
    get: (_t, key) => ((demo as MarketDemo).manager as unknown as Record<string | symbol, unknown>)[key],
  });
  const server = await startFleetServer({ manager: forward, listen: "127.0.0.1:0" });
  demo = {
    options,
    timeScale,
    hours: options.hours ?? 10,
    write: options.write,
    toHours: (realMs: number) => realMs / (3_600_000 * timeScale),
    offers,
    byOffer: new Map(offers.map((o) => [o.offerId, o])),
    // The slow machine clears the minimum (it must be destroyed for its cost, not by the keep rule);
    // the weak CPU does not. Both with room for a loaded machine measuring a quarter low.
    minProofsPerHour: 25,
    target: { proofsPerHour: 110 },
    fake,
    store,
    server,
    manager: undefined,
    market: undefined,
    stopLoops: undefined,
    stopRun: undefined,
  };
  return demo;
}

async function closeDemo(demo: MarketDemo): Promise<void> {
  await demo.stopRun?.();
  await demo.stopLoops?.();
  await demo.market?.close();
  await demo.server.close();
  await demo.store.close();
  await demo.fake.close();
}

function createDemoManager(demo: MarketDemo): FleetManager {
  const { fake } = demo;
  return createFleetManager({
    store: demo.store,
    vast: createVastClient({
      apiKey: fake.apiKey,
      baseUrl: fake.url,
      rateLimit: false,
      retry: { retries: 2, minDelayMs: 10, maxDelayMs: 50 },
      createRecovery: { attempts: 2, delayMs: 20 },
    }),
    logger: silentLogger,
    config: {
      fleet: "demo",
      image: "ghcr.io/example/prover:1",
      managerUrl: demo.server.url,
      // The simulated market's agents run on this machine: loopback reaches them.
      allowLoopbackManagerUrl: true,
      minProofsPerHour: demo.minProofsPerHour,
      benchmarkProofs: 4,
      heartbeatIntervalMs: 1_000,
      // Real-time deadlines: parameters arrive at once on an honest machine of this market.
      deadlines: { overridesMs: { params: 3_000 } },
    },
  });
}

/** Runs the manager's loops and the `fleet run` loop for the hours (or until told), printing each decision. */
async function runDecisions(demo: MarketDemo, fleet: FleetManager): Promise<MarketDemoSummary["decisions"]> {
  const { options, write, store } = demo;
  const started = Date.now();
  let finishEarly = () => {};
  const decisions: MarketDemoSummary["decisions"] = [];
  write("\ndecisions (simulated hours):");
  demo.stopLoops = fleet.startLoops({ reconcileEveryMs: 500, monitorEveryMs: 200 });
  demo.stopRun = startFleetRun(fleet, {
    target: demo.target,
    maxVetting: 3,
    intervalMs: 500,
    onStep: (step) => {
      const atHours = demo.toHours(Date.now() - started);
      for (const decision of step.decisions) {
        decisions.push({ atHours, decision });
        const what =
          decision.action === "rent" ? `rent offer ${decision.offerId}` : `destroy ${decision.instanceId}`;
        write(`  ${atHours.toFixed(2).padStart(5)} h  ${what}: ${decision.reason}`);
      }
      const until = options.until;
      if (until === undefined) return;
      // The store is asynchronous: the stop check reads it after the step, off the step's path.
      void Promise.all([store.performance.list(), store.performance.failedInstanceIds()]).then(
        ([performance, failed]) => {
          const productionReports = performance.filter((p) => p.kind === "production").length;
          if (until({ decisions, productionReports, failedInstances: failed.size })) finishEarly();
        },
        (error: unknown) => write(`  reading the store failed: ${String(error)}`),
      );
    },
    onError: (error) => write(`  fleet run step failed: ${String(error)}`),
  });
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, demo.hours * 3_600_000 * demo.timeScale);
    finishEarly = () => {
      clearTimeout(timer);
      resolve();
    };
    if (options.signal?.aborted) finishEarly();
    options.signal?.addEventListener("abort", () => finishEarly(), { once: true });
  });
  await demo.stopRun();
  demo.stopRun = undefined;
  return decisions;
}

/** How each rental ended: the store's record and verdict, the run's reason, the market's truth. */
async function instanceOutcomes(
  demo: MarketDemo,
  market: Market,
  end: number,
): Promise<DemoInstanceOutcome[]> {
  const { store, toHours } = demo;
  const records = await store.list();
  const benchmarks = new Map(
    await Promise.all(records.map(async (r) => [r.id, await store.benchmarkResult(r.id)] as const)),
  );
  const eventsOf = new Map(
    await Promise.all(records.map(async (r) => [r.id, await store.events({ instanceId: r.id })] as const)),
  );
  return records.map((record): DemoInstanceOutcome => {
    const offer = demo.byOffer.get(record.offerId) as DemoOffer;
    const benchmark = benchmarks.get(record.id);
    const machine = [...market.machines.values()].find((m) => m.instanceId === record.id);
    const runDestroy = (eventsOf.get(record.id) ?? []).find(
      (e) => e.type === "fleet-run" && e.detail?.action === "destroy",
    );
    const died = machine?.diedAt !== undefined ? "the host died (Vast: exited)" : undefined;
    return {
      instanceId: record.id,
      offerId: record.offerId,
      offer,
      state: record.state,
      verdict: benchmark?.verdict,
      measuredProofsPerHour: benchmark?.proofsPerHour,
      why:
        (runDestroy?.detail?.reason as string | undefined) ??
        (died === undefined ? record.reason : `${died}; ${record.reason ?? ""}`),
      billedHours: machine === undefined ? 0 : toHours(market.billedMs(machine, end)),
      trueProofsPerHour: trueRate(machine, toHours),
    };
  });
}

// A rate the market counted is only truth over enough proofs and hours: a few proofs that a
// busy host's scheduler delayed complete in one burst, and their span says nothing of speed.
const truthMinProofs = 10;
const truthMinHours = 0.5;

/** Proofs per hour between its first and latest completion (serving start-up is not speed); undefined on too little evidence. */
function trueRate(
  machine: MarketMachine | undefined,
  toHours: (realMs: number) => number,
): number | undefined {
  if (machine?.firstCompletedAt === undefined || machine.lastCompletedAt === undefined) return undefined;
  const hours = toHours(machine.lastCompletedAt - machine.firstCompletedAt);
  if (machine.completedProofs < truthMinProofs || hours < truthMinHours) return undefined;
  return (machine.completedProofs - 1) / hours;
}

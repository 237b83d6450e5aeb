import type { SubmitProofInput } from "@cuzkit/client";
import { silentLogger } from "@cuzkit/core";
import { createVastClient } from "@cuzkit/vast";
import { startFakeVastServer } from "@cuzkit/vast/testing";
import type { ClassCalibration } from "../economics/calibration.js";
import { knowledgeFromStore } from "../economics/knowledge.js";
import type { FleetDecision } from "../economics/run-planner.js";
import { createFleetManager, type FleetManager } from "../manager/fleet-manager.js";
import { startFleetRun } from "../manager/fleet-run.js";
import type { RankedOffer } from "../manager/rank-offers.js";
import { startFleetServer } from "../server/fleet-server.js";
import type { HostPerformanceRecord } from "../store/host-performance.js";
import { openFleetStore } from "../store/open-fleet-store.js";
import { type CuzkitCommand, type Market, startMarket } from "../testing/market.js";
import { type DemoOffer, demoBehaviour, demoMarket, vastOfferRecord } from "./demo-market.js";

/** Options of {@link runMarketDemo}. */
export interface MarketDemoOptions {
  /** How to run `cuzkit` for the agents and their sims. Required. */
  cuzkit: CuzkitCommand;
  /** The work a kept machine's daemon is sent (a synthetic PoRep). Required. */
  request: SubmitProofInput;
  /** Where the lines go. Required. */
  write: (line: string) => void;
  /** Simulated hours of operation. Default 10. */
  hours?: number | undefined;
  /** Real seconds per simulated second. Default 0.001 (a simulated hour takes 3.6 s). */
  timeScale?: number | undefined;
  /** The per-machine spread's seed. Default 1. */
  seed?: number | undefined;
  /** Ends the run early (the summary is still printed, every process stopped), such as on Ctrl-C. Default: none. */
  signal?: AbortSignal | undefined;
  /** Ends the run early once this says so (checked after each fleet run step); `hours` is then the cap. Default: run all the hours. */
  until?: ((progress: DemoProgress) => boolean) | undefined;
}

/** Where the run stands, for {@link MarketDemoOptions.until}. */
export interface DemoProgress {
  decisions: ReadonlyArray<{ atHours: number; decision: FleetDecision }>;
  /** Production reports the manager has kept so far. */
  productionReports: number;
  /** Instances that failed so far (a deadline, a death, a failed step). */
  failedInstances: number;
}

/** How one rented instance ended (or stands at the end). */
export interface DemoInstanceOutcome {
  instanceId: string;
  offerId: number;
  offer: DemoOffer;
  /** The final state: `active` when kept to the end, else `destroyed` (or on its way). */
  state: string;
  /** The benchmark's verdict and measured proofs/hour, when it reported. */
  verdict: string | undefined;
  measuredProofsPerHour: number | undefined;
  /** Why it was destroyed: the fleet run's decision, the keep rule, a deadline, a death. */
  why: string | undefined;
  /** Simulated hours it was billed. */
  billedHours: number;
  /** Its true production rate: the proofs the market saw its daemon complete over the hours it was sent work. */
  trueProofsPerHour: number | undefined;
}

/** What the demo showed, for tests. */
export interface MarketDemoSummary {
  offers: DemoOffer[];
  before: RankedOffer[];
  after: RankedOffer[];
  decisions: Array<{ atHours: number; decision: FleetDecision }>;
  instances: DemoInstanceOutcome[];
  calibration: Map<string, ClassCalibration>;
  /** Per class: the geometric mean of true production rate over the model, of its machines that served. */
  classTruth: Map<string, number>;
  performance: HostPerformanceRecord[];
  /** Proofs the kept machines' daemons completed in production, as their agents counted and reported them. */
  productionProofs: number;
  /** What every rental cost, vetting included. */
  dollars: number;
  /** Proofs the market saw the daemons complete (its own count, for checking the fleet's). */
  marketCompletedProofs: number;
  /** dollars x 1000 / productionProofs. */
  costPer1000: number;
  /** The true $ per 1000 proofs of the best machine that served (its price over the rate the market counted). */
  bestTrueCostPer1000: number;
}

const money = (x: number) => (Number.isFinite(x) ? `$${x.toFixed(2)}` : "-");
const rate = (x: number | undefined) => (x === undefined ? "-" : x.toFixed(1));

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
// shape-exception: a scripted story told in order (market, manager, run, summary) over shared processes
export async function runMarketDemo(options: MarketDemoOptions): Promise<MarketDemoSummary> {
  const timeScale = options.timeScale ?? 0.001;
  const hours = options.hours ?? 10;
  const { write } = options;
  const toHours = (realMs: number) => realMs / (3_600_000 * timeScale);
  const offers = demoMarket(options.seed ?? 1);
  const byOffer = new Map(offers.map((o) => [o.offerId, o]));
  // The slow machine clears the minimum (it must be destroyed for its cost, not by the keep rule);
  // the weak CPU does not. Both with room for a loaded machine measuring a quarter low.
  const minProofsPerHour = 25;
  const target = { proofsPerHour: 110 };

  const fake = await startFakeVastServer({ rateLimits: false, offers: offers.map(vastOfferRecord) });
  const store = openFleetStore({ path: ":memory:" });
  let market: Market | undefined;
  let manager: FleetManager | undefined;
  // Agents need the manager's URL before the manager exists: serve on port 0, then forward.
  const forward = new Proxy({} as FleetManager, {
    get: (_t, key) => (manager as unknown as Record<string | symbol, unknown>)[key],
  });
  const server = await startFleetServer({ manager: forward, listen: "127.0.0.1:0" });
  let stopLoops: (() => Promise<void>) | undefined;
  let stopRun: (() => Promise<void>) | undefined;
  try {
    manager = createFleetManager({
      store,
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
        managerUrl: server.url,
        // The simulated market's agents run on this machine: loopback reaches them.
        allowLoopbackManagerUrl: true,
        minProofsPerHour,
        benchmarkProofs: 4,
        heartbeatIntervalMs: 1_000,
        // Real-time deadlines: parameters arrive at once on an honest machine of this market.
        deadlines: { overridesMs: { params: 3_000 } },
      },
    });
    const fleet = manager;
    market = startMarket(fake, {
      cuzkit: options.cuzkit,
      timeScale,
      throughputEveryMs: 1_500,
      production: { request: options.request },
      behaviours: Object.fromEntries(offers.map((o) => [o.offerId, demoBehaviour(o, timeScale)])),
    });

    write(
      `a simulated market of ${offers.length} offers, ${hours} simulated hours (1 hour = ${(3.6 * timeScale * 1000).toFixed(1)} s), target ${target.proofsPerHour} proofs/hour, minimum ${minProofsPerHour}`,
    );
    write(
      "each rental is a real `cuzkit agent` in front of a `cuzkit sim` at the machine's hidden true speed\n",
    );
    const before = (await fleet.rankAll()).ranked;
    writeRanking(write, "ranking before any measurement (the model only):", before, byOffer);

    const started = Date.now();
    let finishEarly = () => {};
    const decisions: MarketDemoSummary["decisions"] = [];
    write("\ndecisions (simulated hours):");
    stopLoops = fleet.startLoops({ reconcileEveryMs: 500, monitorEveryMs: 200 });
    stopRun = startFleetRun(fleet, {
      target,
      maxVetting: 3,
      intervalMs: 500,
      onStep: (step) => {
        const atHours = toHours(Date.now() - started);
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
      const timer = setTimeout(resolve, hours * 3_600_000 * timeScale);
      finishEarly = () => {
        clearTimeout(timer);
        resolve();
      };
      if (options.signal?.aborted) finishEarly();
      options.signal?.addEventListener("abort", () => finishEarly(), { once: true });
    });
    await stopRun();
    stopRun = undefined;
    const end = Date.now();

    const performance = await store.performance.list();
    const records = await store.list();
    const benchmarks = new Map(
      await Promise.all(records.map(async (r) => [r.id, await store.benchmarkResult(r.id)] as const)),
    );
    const eventsOf = new Map(
      await Promise.all(records.map(async (r) => [r.id, await store.events({ instanceId: r.id })] as const)),
    );
    const instances = records.map((record): DemoInstanceOutcome => {
      const offer = byOffer.get(record.offerId) as DemoOffer;
      const benchmark = benchmarks.get(record.id);
      const machine = [...(market as Market).machines.values()].find((m) => m.instanceId === record.id);
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
        billedHours: machine === undefined ? 0 : toHours((market as Market).billedMs(machine, end)),
        // Between its first and latest completion: the daemon's start-up for serving is not its speed.
        trueProofsPerHour:
          machine === undefined ||
          machine.completedProofs < 3 ||
          machine.firstCompletedAt === undefined ||
          machine.lastCompletedAt === undefined
            ? undefined
            : (machine.completedProofs - 1) / toHours(machine.lastCompletedAt - machine.firstCompletedAt),
      };
    });
    write("\nhow each machine ended (the hidden truth in brackets):");
    for (const i of instances) {
      write(
        `  offer ${i.offerId} ${i.instanceId} ${outcomeLabel(i.state)} ${i.verdict ?? "no verdict"} ${rate(i.measuredProofsPerHour)} proofs/hour (true ${rate(i.trueProofsPerHour)}), billed ${i.billedHours.toFixed(1)} h${outcomeLabel(i.state) === "DESTROYED" ? `: ${i.why ?? ""}` : ""}  [hidden: ${i.offer.quirk}, x${i.offer.trueFactor.toFixed(2)}]`,
      );
    }

    // Rented offers too, so the kept machines show at their measurements.
    const ranking = await fleet.rankAll({ defaults: { rented: "any" } });
    const after = ranking.ranked;
    writeRanking(write, "\nranking after measurement (rented offers included):", after, byOffer);
    for (const e of ranking.excluded) write(`  ${e.offer.id}   left out: ${e.reason}`);

    const { calibration } = await knowledgeFromStore(store);
    const classTruth = trueClassFactors(instances);
    write("\nlearnt calibration (measured / model), next to the truth the market counted:");
    for (const c of calibration.values()) {
      const truth = classTruth.get(c.classKey);
      write(
        `  ${c.classKey.padEnd(52)} x${c.factor.toFixed(2)} (spread ${c.spreadLog.toFixed(2)}, n=${c.samples})  true x${truth?.toFixed(2) ?? "?"}`,
      );
    }
    write(
      "  (true: proofs its served machines completed per hour, over the model; the simulator itself runs below the tuner's model, so even an honest class is below x1)",
    );

    const production = performance.filter((p) => p.kind === "production");
    // The agents reported counted proofs over windows; the store keeps them as a rate and a window.
    const productionProofs = production.reduce(
      (sum, p) => sum + Math.round((p.proofsPerHour * (p.windowMs ?? 0)) / 3_600_000),
      0,
    );
    const dollars = instances.reduce((sum, i) => sum + i.offer.dphTotal * i.billedHours, 0);
    const costPer1000 = productionProofs > 0 ? (dollars * 1000) / productionProofs : Number.POSITIVE_INFINITY;
    const bestTrueCostPer1000 = Math.min(
      ...instances
        .filter((i) => i.trueProofsPerHour !== undefined)
        .map((i) => (i.offer.dphTotal * 1000) / (i.trueProofsPerHour as number)),
    );
    write("\n$ per 1000 proofs achieved:");
    write(
      `  ${productionProofs} proofs counted in ${production.length} production reports; ${money(dollars)} billed over ${instances.length} rentals (vetting included)`,
    );
    write(
      `  achieved ${money(costPer1000)} per 1000 proofs; the best machine it found produces at ${money(bestTrueCostPer1000)} (its true rate)`,
    );
    write(
      "  (the achieved figure pays for every rental's vetting, the machines that failed, and hours before the first production report)",
    );
    return {
      offers,
      before,
      after,
      decisions,
      instances,
      calibration,
      classTruth,
      performance,
      productionProofs,
      marketCompletedProofs: [...market.machines.values()].reduce((sum, m) => sum + m.completedProofs, 0),
      dollars,
      costPer1000,
      bestTrueCostPer1000,
    };
  } finally {
    await stopRun?.();
    await stopLoops?.();
    await market?.close();
    await server.close();
    await store.close();
    await fake.close();
  }
}

function writeRanking(
  write: (line: string) => void,
  title: string,
  ranked: readonly RankedOffer[],
  byOffer: ReadonlyMap<number, DemoOffer>,
): void {
  write(title);
  write(
    "  offer  gpus           used        predicted  corrected  measured (n)  $/h    $/1000  optimistic  [hidden]",
  );
  for (const { offer, ranking: r } of ranked) {
    const hidden = byOffer.get(offer.id);
    write(
      `  ${offer.id}   ${`${offer.numGpus}x ${offer.gpuName}`.padEnd(13)}  ${r.source.padEnd(10)}  ${rate(r.predictedProofsPerHour).padStart(9)}  ${rate(r.correctedProofsPerHour).padStart(9)}  ${(r.measured === undefined ? "-" : `${rate(r.measured.proofsPerHour)} (${r.measured.runs})`).padStart(12)}  ${offer.dphTotal.toFixed(3)}  ${money(r.costPer1000).padStart(6)}  ${money(r.optimisticCostPer1000).padStart(10)}  [${hidden?.quirk ?? "?"}, x${hidden?.trueFactor.toFixed(2) ?? "?"}]`,
    );
  }
}

/** Per class, the geometric mean of true production rate / model over the machines that served work. */
function trueClassFactors(instances: readonly DemoInstanceOutcome[]): Map<string, number> {
  const logs = new Map<string, number[]>();
  for (const i of instances) {
    if (i.trueProofsPerHour === undefined || !(i.trueProofsPerHour > 0)) continue;
    const list = logs.get(i.offer.classKey) ?? [];
    list.push(Math.log(i.trueProofsPerHour / i.offer.predictedProofsPerHour));
    logs.set(i.offer.classKey, list);
  }
  return new Map(
    [...logs].map(([key, xs]) => [key, Math.exp(xs.reduce((a, b) => a + b, 0) / xs.length)] as const),
  );
}

/** KEPT, DESTROYED, or STILL VETTING when the run ended before its verdict. */
function outcomeLabel(state: string): string {
  if (state === "active") return "KEPT";
  return ["destroyed", "destroying", "failed", "rejected", "draining"].includes(state)
    ? "DESTROYED"
    : "STILL VETTING";
}

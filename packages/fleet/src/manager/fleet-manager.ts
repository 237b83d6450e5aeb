import { type Clock, type Logger, silentLogger, systemClock } from "@cuzkit/core";
import type { OfferQuery } from "@cuzkit/vast";
import { setCurioCordon } from "../curio/cordon.js";
import { type CurioLinkOptions, resolveCurioLink } from "../curio/curio-link.js";
import type { CurioMachine } from "../curio/harmony-source.js";
import { recordCurioProduction } from "../curio/production-sync.js";
import type { MachineEvidenceRecord } from "../economics/machine-evidence.js";
import type { FleetStore } from "../store/fleet-store.js";
import type { InstanceRecord } from "../store/records.js";
import { type AgentHandlers, agentHandlers } from "./agent-handlers.js";
import { type DestroyFn, destroyInBackground, resumeCurioDrains } from "./background-destroy.js";
import { createBackgroundJobs } from "./background-jobs.js";
import { type FleetConfig, type ResolvedFleetConfig, resolveFleetConfig } from "./config.js";
import type { Checkpoint, FleetVast, ManagerContext } from "./context.js";
import { type DeployOptions, resumePlanned } from "./deploy.js";
import { exclusionPolicyOf } from "./evidence.js";
import { liftMachineExclusion, type MachinesReport, machinesReport } from "./machines-report.js";
import { type LoopOptions, type LoopState, startManagerLoops } from "./manager-loops.js";
import { type MonitorSummary, monitor } from "./monitor.js";
import { deployBestOffers, deployOfferById, rankAllOffers } from "./offer-deploys.js";
import { type DestroyOptions, destroyInstance } from "./operator-destroy.js";
import type { ExcludedOffer, RankedOffer } from "./rank-offers.js";
import { type ReconcileSummary, reconcile } from "./reconcile.js";

export type { LoopOptions, LoopState } from "./manager-loops.js";
export type { DestroyOptions } from "./operator-destroy.js";

/** Options of createFleetManager. */
export interface FleetManagerOptions {
  /** The store. Required. */
  store: FleetStore;
  /** A Vast client (createVastClient). Required. */
  vast: FleetVast;
  /** The fleet. `minProofsPerHour` is required. */
  config: FleetConfig;
  /** Clock for deadlines and heartbeats. Default: the system clock. */
  clock?: Clock | undefined;
  /** Logger. Default: silent. */
  logger?: Logger | undefined;
  /** Randomness for backoff jitter. Default Math.random. */
  random?: (() => number) | undefined;
  /** Called at each named step (tests crash the process there). Default: nothing. */
  checkpoint?: Checkpoint | undefined;
  /**
   * The Curio cluster the machines join: its production is recorded, and an active machine is
   * cordoned and drained before it is destroyed. Default: none.
   */
  curio?: CurioLinkOptions | undefined;
}

/** The fleet manager: deploys, reconciles, watches deadlines and heartbeats, and answers agents. */
export interface FleetManager {
  readonly config: ResolvedFleetConfig;
  readonly store: FleetStore;
  /** The agent endpoints as functions (the HTTP server calls these). */
  readonly agent: AgentHandlers;
  /** Rents one offer by id (it must still be offered). */
  deploy(offerId: number, options?: DeployOptions): Promise<InstanceRecord>;
  /** Rents the `count` best-ranked offers of a search, within the budget caps. */
  deployBest(count: number, query?: OfferQuery): Promise<InstanceRecord[]>;
  /** Ranks a search's offers by $ per 1000 proofs (see `rankCandidates`), best first. */
  rank(query?: OfferQuery): Promise<RankedOffer[]>;
  /** The ranking and the offers it left out, with why (`cuzkit fleet offers`). */
  rankAll(query?: OfferQuery): Promise<{ ranked: RankedOffer[]; excluded: ExcludedOffer[] }>;
  /** One reconcile pass against Vast. */
  reconcile(): Promise<ReconcileSummary>;
  /** One deadline/heartbeat/destroy pass. */
  monitor(): Promise<MonitorSummary>;
  /**
   * What a (re)started manager does first: reconcile, rent what was planned, resume the Curio
   * drains a stopped or killed manager left (drained again and destroyed in the background, or
   * uncordoned when no destroy is pending), then monitor.
   */
  startup(): Promise<void>;
  /**
   * Destroys an instance the operator names, from whatever state it is in. An active Curio
   * machine is cordoned and drained first (see cordonAndDrain); a cancelled drain leaves it active.
   */
  destroy(id: string, options?: DestroyOptions): Promise<InstanceRecord>;
  /**
   * Starts a destroy that may drain a Curio node and answers at once (the dashboard's destroy):
   * `background` is true when it goes on after the answer (an active instance with a Curio
   * link), with its progress as events; otherwise the destroy is done. stop() ends it cleanly.
   */
  destroyInBackground(id: string): Promise<{ record: InstanceRecord; background: boolean }>;
  /**
   * Stops the manager's drains (background destroys, and destroys and replacements without a
   * signal of their own): each stops with its state stored and a `curio-drain-interrupted`
   * event (the next start resumes it); the background ones are awaited. Until startup() runs
   * again, a destroy without its own signal leaves a Curio node's drain stored, not run.
   */
  stop(): Promise<void>;
  /** Waits until the background jobs running now (destroys, replacements on Curio) have ended. */
  settled(): Promise<void>;
  /** Every machine with its evidence, failure rate and exclusion (`cuzkit fleet hosts`, the dashboard). */
  machines(): Promise<MachinesReport>;
  /** Lifts a machine's exclusion, with an event; throws InvalidInputError when it is not excluded. */
  liftExclusion(machineId: number, reason?: string): Promise<MachineEvidenceRecord>;
  /**
   * Sets the Curio cordon flag (`harmony_machines.unschedulable`) of an instance's node, with an
   * event; throws FleetConfigError without a Curio link, FleetCurioNodeError when its node is not
   * found or cannot be told apart. Answers the node.
   */
  setCordon(id: string, cordoned: boolean): Promise<CurioMachine>;
  /** Records Curio's production rates of the fleet's Curio machines (nothing without a Curio link). */
  recordCurioProduction(): ReturnType<typeof recordCurioProduction>;
  /** Runs reconcile and monitor on timers until the returned function is called. */
  startLoops(options?: LoopOptions): () => Promise<void>;
  /** When the loops last finished a pass (the dashboard's "last step"); all undefined before the loops run. */
  loopState(): LoopState;
}

/** Creates the manager. Nothing runs until a method or startLoops is called. */
export function createFleetManager(options: FleetManagerOptions): FleetManager {
  const config = resolveFleetConfig(options.config);
  const clock = options.clock ?? systemClock;
  /** Aborted by stop(); renewed by startup() (a manager that leads again). */
  let stopping = new AbortController();
  const ctx: ManagerContext = {
    store: options.store,
    vast: options.vast,
    config,
    clock,
    startedAt: clock.now(),
    logger: options.logger ?? silentLogger,
    random: options.random ?? Math.random,
    checkpoint: options.checkpoint ?? (() => {}),
    curio: options.curio === undefined ? undefined : resolveCurioLink(options.curio),
    stopSignal: () => stopping.signal,
    runInBackground: (id, job) => {
      jobs.run(id, job);
    },
  };
  const { store } = ctx;
  const jobs = createBackgroundJobs(ctx);
  const loops: LoopState = { lastPassAt: undefined, lastPass: undefined, monitorEveryMs: undefined };
  const destroy: DestroyFn = (id, destroyOptions = {}) =>
    destroyInstance(ctx, id, destroyOptions, stopping.signal);
  const inBackground = (id: string) => destroyInBackground(ctx, jobs, destroy, id);
  return {
    config,
    store,
    agent: agentHandlers(ctx),
    deploy: (offerId, deployOptions) => deployOfferById(ctx, offerId, deployOptions),
    deployBest: (count, query) => deployBestOffers(ctx, count, query),
    rank: async (query) => (await rankAllOffers(ctx, query)).ranked,
    rankAll: (query) => rankAllOffers(ctx, query),
    reconcile: () => reconcile(ctx),
    monitor: () => monitor(ctx),
    async startup() {
      // A manager that leads again after a stop drains again.
      if (stopping.signal.aborted) stopping = new AbortController();
      await reconcile(ctx);
      await resumePlanned(ctx);
      await resumeCurioDrains(ctx, inBackground);
      await monitor(ctx);
    },
    destroyInBackground: inBackground,
    async stop() {
      const reason = new Error("the fleet manager is stopping");
      stopping.abort(reason);
      await jobs.abortAll(reason);
    },
    settled: () => jobs.settled(),
    recordCurioProduction: () => recordCurioProduction(ctx),
    setCordon: (id, cordoned) => setCurioCordon(ctx, id, cordoned),
    machines: () => machinesReport(store, clock.now(), exclusionPolicyOf(ctx)),
    liftExclusion: (machineId, reason) =>
      liftMachineExclusion(store, machineId, exclusionPolicyOf(ctx), reason),
    destroy,
    startLoops: (loopOptions) => startManagerLoops(ctx, loops, loopOptions),
    loopState: () => ({ ...loops }),
  };
}

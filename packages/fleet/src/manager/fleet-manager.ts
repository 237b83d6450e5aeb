import { type Clock, type Logger, silentLogger, systemClock, toCuzkitError } from "@cuzkit/core";
import type { OfferQuery } from "@cuzkit/vast";
import { setCurioCordon } from "../curio/cordon.js";
import { type CurioLinkOptions, resolveCurioLink } from "../curio/curio-link.js";
import { cordonAndDrain } from "../curio/drain.js";
import type { CurioMachine } from "../curio/harmony-source.js";
import { recordCurioProduction } from "../curio/production-sync.js";
import { fleetDefaults } from "../defaults.js";
import { knowledgeFromStore } from "../economics/knowledge.js";
import type { MachineEvidenceRecord } from "../economics/machine-evidence.js";
import { FleetBudgetError, FleetCurioNodeError, FleetOfferRefusedError } from "../errors.js";
import { vettingStates } from "../lifecycle.js";
import type { FleetStore } from "../store/fleet-store.js";
import type { InstanceRecord } from "../store/records.js";
import { type AgentHandlers, agentHandlers } from "./agent-handlers.js";
import { type FleetConfig, type ResolvedFleetConfig, resolveFleetConfig } from "./config.js";
import type { Checkpoint, FleetVast, ManagerContext } from "./context.js";
import { type DeployOptions, deployOffer, resumePlanned } from "./deploy.js";
import { attemptDestroy, beginDestroy, failAndDestroy } from "./destroyer.js";
import { exclusionPolicyOf } from "./evidence.js";
import { liftMachineExclusion, type MachinesReport, machinesReport } from "./machines-report.js";
import { type MonitorSummary, monitor } from "./monitor.js";
import { type ExcludedOffer, type RankedOffer, rankVastOffers } from "./rank-offers.js";
import { type ReconcileSummary, reconcile } from "./reconcile.js";

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

/** Options of FleetManager.destroy. */
export interface DestroyOptions {
  /** Cancels the destroy while a Curio machine drains: it is uncordoned and stays active. Default: none. */
  signal?: AbortSignal | undefined;
  /**
   * The event type of an active instance's move to `draining`, naming who decided (`fleet run`
   * passes `over-target`). Default `operator-destroy`.
   */
  eventType?: string | undefined;
  /** Why, in the move's event (`detail.reason`). Default: none. */
  reason?: string | undefined;
}

/** Options of the manager's loops. */
export interface LoopOptions {
  /** Reconcile interval, ms. Default 60 000. */
  reconcileEveryMs?: number | undefined;
  /** Deadline, heartbeat and destroy pass interval, ms. Default 10 000. */
  monitorEveryMs?: number | undefined;
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
  /** What a (re)started manager does first: reconcile, rent what was planned, then monitor. */
  startup(): Promise<void>;
  /**
   * Destroys an instance the operator names, from whatever state it is in. An active Curio
   * machine is cordoned and drained first (see cordonAndDrain); a cancelled drain leaves it active.
   */
  destroy(id: string, options?: DestroyOptions): Promise<InstanceRecord>;
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

/** What the manager's loops last did. */
export interface LoopState {
  /** When the last pass ended (ok or not), epoch ms. */
  lastPassAt: number | undefined;
  /** Which loop it was: `reconcile`, `monitor` or `curio`. */
  lastPass: string | undefined;
  /** The monitor's interval while the loops run, ms: a pass older than a few of these is news. */
  monitorEveryMs: number | undefined;
}

/** Creates the manager. Nothing runs until a method or startLoops is called. */
export function createFleetManager(options: FleetManagerOptions): FleetManager {
  const config = resolveFleetConfig(options.config);
  const clock = options.clock ?? systemClock;
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
  };
  const { store, vast } = ctx;

  async function rankAll(query: OfferQuery = {}) {
    const offers = await vast.searchOffers({ allocatedStorageGb: config.diskGb, ...query });
    return rankVastOffers(
      offers,
      config,
      await knowledgeFromStore(store, clock.now(), exclusionPolicyOf(ctx)),
    );
  }
  const rank = async (query: OfferQuery = {}): Promise<RankedOffer[]> => (await rankAll(query)).ranked;

  const loops: LoopState = { lastPassAt: undefined, lastPass: undefined, monitorEveryMs: undefined };
  const manager: FleetManager = {
    config,
    store,
    agent: agentHandlers(ctx),
    async deploy(offerId, deployOptions) {
      const [offer] = await vast.searchOffers({
        filters: { id: offerId },
        allocatedStorageGb: config.diskGb,
      });
      if (offer === undefined) {
        throw new FleetOfferRefusedError(
          `offer ${offerId} is not offered (rented by someone else, or not verified and rentable)`,
          { hint: "pick a current offer: cuzkit vast offers, or cuzkit fleet deploy --best N" },
        );
      }
      return deployOffer(ctx, offer, deployOptions);
    },
    async deployBest(count, query) {
      const deployed: InstanceRecord[] = [];
      for (const ranked of await rank(query)) {
        if (deployed.length >= count) break;
        try {
          deployed.push(await deployOffer(ctx, ranked.offer));
        } catch (error) {
          if (error instanceof FleetBudgetError) {
            if (deployed.length === 0) throw error;
            break;
          }
          ctx.logger.warn("fleet skipped an offer", {
            offerId: ranked.offer.id,
            code: toCuzkitError(error).code,
          });
        }
      }
      return deployed;
    },
    rank,
    rankAll,
    reconcile: () => reconcile(ctx),
    monitor: () => monitor(ctx),
    async startup() {
      await reconcile(ctx);
      await resumePlanned(ctx);
      await monitor(ctx);
    },
    recordCurioProduction: () => recordCurioProduction(ctx),
    setCordon: (id, cordoned) => setCurioCordon(ctx, id, cordoned),
    machines: () => machinesReport(store, clock.now(), exclusionPolicyOf(ctx)),
    liftExclusion: (machineId, reason) =>
      liftMachineExclusion(store, machineId, exclusionPolicyOf(ctx), reason),
    async destroy(id, destroyOptions = {}) {
      const record = await store.require(id);
      switch (record.state) {
        case "destroyed":
          return record;
        case "planned":
          return await store.transition(id, "planned", "destroyed", { eventType: "operator-destroy" });
        case "destroying":
          return attemptDestroy(ctx, record);
        case "rejected":
        case "failed":
          return beginDestroy(ctx, id, [record.state]);
        case "active": {
          // A Curio machine finishes (or runs out of time for) its tasks while still active, so
          // the monitor does not destroy it meanwhile; a cancel leaves it active and schedulable.
          let conflict = "";
          const drained = await cordonAndDrain(ctx, record, destroyOptions.signal, (c) => {
            conflict = c.reason;
          });
          if (drained === "cancelled") return store.require(id);
          if (drained === "conflict") {
            throw new FleetCurioNodeError(
              `${id} was not destroyed: its Curio node cannot be told apart (${conflict}); nothing was cordoned`,
              { instanceId: id },
            );
          }
          const detail: Record<string, unknown> = {};
          if (destroyOptions.reason !== undefined) detail.reason = destroyOptions.reason;
          if (drained !== "not-curio") detail.curioDrain = drained;
          await store.transition(id, "active", "draining", {
            eventType: destroyOptions.eventType ?? "operator-destroy",
            detail: Object.keys(detail).length === 0 ? undefined : detail,
          });
          return beginDestroy(ctx, id, ["draining"]);
        }
        case "draining":
          return beginDestroy(ctx, id, ["draining"]);
        default: {
          const failed = await failAndDestroy(
            ctx,
            id,
            ["renting", "booting", ...vettingStates],
            "destroyed by the operator",
            "operator-destroy",
          );
          return failed ?? (await store.require(id));
        }
      }
    },
    startLoops(loopOptions = {}) {
      let running: Promise<unknown> = Promise.resolve();
      let busy = false;
      const guarded = (name: string, pass: () => Promise<unknown>) => () => {
        if (busy) return; // one pass at a time; a slow Vast call delays the next tick
        busy = true;
        running = pass()
          .catch((error) => ctx.logger.warn(`fleet ${name} pass failed`, { code: toCuzkitError(error).code }))
          .finally(() => {
            busy = false;
            loops.lastPassAt = clock.now();
            loops.lastPass = name;
          });
      };
      loops.monitorEveryMs = loopOptions.monitorEveryMs ?? fleetDefaults.monitorEveryMs;
      const curio = ctx.curio;
      const timers = [
        ...(curio === undefined
          ? []
          : [
              setInterval(
                guarded("curio", () => recordCurioProduction(ctx)),
                curio.everyMs,
              ),
            ]),
        setInterval(
          guarded("reconcile", () => reconcile(ctx)),
          loopOptions.reconcileEveryMs ?? fleetDefaults.reconcileEveryMs,
        ),
        setInterval(
          guarded("monitor", () => monitor(ctx)),
          loopOptions.monitorEveryMs ?? fleetDefaults.monitorEveryMs,
        ),
      ];
      return async () => {
        for (const timer of timers) clearInterval(timer);
        await running;
        loops.monitorEveryMs = undefined;
      };
    },
    loopState: () => ({ ...loops }),
  };
  return manager;
}

// shape-exception: the manager's public type and its factory
import { type Clock, type Logger, silentLogger, systemClock, toCuzkitError } from "@cuzkit/core";
import type { OfferQuery } from "@cuzkit/vast";
import { setCurioCordon } from "../curio/cordon.js";
import { type CurioLinkOptions, resolveCurioLink } from "../curio/curio-link.js";
import { cordonAndDrain, releaseStoredDrain } from "../curio/drain.js";
import type { CurioMachine } from "../curio/harmony-source.js";
import { curioNodeOf } from "../curio/machine-map.js";
import { recordCurioProduction } from "../curio/production-sync.js";
import { fleetDefaults } from "../defaults.js";
import { knowledgeFromStore } from "../economics/knowledge.js";
import type { MachineEvidenceRecord } from "../economics/machine-evidence.js";
import {
  FleetBudgetError,
  FleetCurioDbError,
  FleetCurioNodeError,
  FleetOfferRefusedError,
} from "../errors.js";
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
   * What the signal does to a drain: `uncordon` (a cancel) or `keep` (the drain stays stored and
   * the next start resumes it: a manager stopping). Default `uncordon`.
   */
  onAbort?: "uncordon" | "keep" | undefined;
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
// shape-exception: a closure over the manager's loops and stop signal; the work is in reconcile, monitor, deploy and destroyer
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
    stopSignal: () => stopping.signal,
    runInBackground: (id, job) => {
      runInBackground(id, job);
    },
  };
  /** Aborted by stop(); renewed by startup() (a manager that leads again). */
  let stopping = new AbortController();
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

  /**
   * Jobs running after their caller returned (background destroys, production replacements on
   * Curio), by instance: one at a time per instance; stop() aborts and awaits them.
   */
  const background = new Map<string, { controller: AbortController; done: Promise<void> }>();
  function runInBackground(id: string, job: (signal: AbortSignal) => Promise<void>): void {
    if (background.has(id)) return;
    const controller = new AbortController();
    const done = job(controller.signal)
      .catch(async (error: unknown) => {
        // The drain's own events say what happened; this one says the destroy did not go ahead.
        const failure = toCuzkitError(error);
        ctx.logger.warn("fleet background destroy failed", { instanceId: id, code: failure.code });
        await store
          .appendEvent(id, "destroy-refused", {
            code: failure.code,
            message: failure.message,
            hint: failure.hint ?? null,
          })
          .catch(() => {});
      })
      .finally(() => background.delete(id));
    background.set(id, { controller, done });
  }
  async function destroyInBackground(id: string): Promise<{ record: InstanceRecord; background: boolean }> {
    const record = await store.require(id);
    // Only a drain takes long: a non-Curio machine is destroyed now, and a node that cannot be
    // told apart is refused now (the conflict's error), both before the answer.
    const drains =
      ctx.curio !== undefined &&
      record.state === "active" &&
      (record.curioDrain !== undefined || (await curioNodeOf(ctx, id)).kind === "node");
    if (!drains) return { record: await manager.destroy(id), background: false };
    runInBackground(id, async (signal) => {
      await manager.destroy(id, { signal, onAbort: "keep" });
    });
    return { record, background: true };
  }

  /** At start: drains left `draining` with a destroy pending are resumed in the background; the others uncordoned. */
  async function resumeCurioDrains(): Promise<void> {
    if (ctx.curio === undefined) return;
    for (const record of await store.list()) {
      const drain = record.curioDrain;
      if (drain === undefined) continue;
      if (record.state === "active" && drain.state === "draining" && drain.destroyPending) {
        await store.appendEvent(record.id, "curio-drain-resumed", {
          curioMachineId: drain.curioMachineId,
          deadlineAt: drain.deadlineAt ?? null,
        });
        await destroyInBackground(record.id);
      } else {
        await releaseStoredDrain(ctx, record);
      }
    }
  }

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
      // A manager that leads again after a stop drains again.
      if (stopping.signal.aborted) stopping = new AbortController();
      await reconcile(ctx);
      await resumePlanned(ctx);
      await resumeCurioDrains();
      await monitor(ctx);
    },
    destroyInBackground,
    async stop() {
      const reason = new Error("the fleet manager is stopping");
      stopping.abort(reason);
      for (const job of background.values()) job.controller.abort(reason);
      await Promise.all([...background.values()].map((job) => job.done));
    },
    async settled() {
      while (background.size > 0) await Promise.all([...background.values()].map((job) => job.done));
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
          let failure: unknown;
          // Without a signal of its own (a fleet run trim, a library call), the manager's stop
          // ends the drain with its state stored: the next start resumes it.
          const ownSignal = destroyOptions.signal !== undefined;
          const drained = await cordonAndDrain(ctx, record, {
            signal: ownSignal ? destroyOptions.signal : stopping.signal,
            onAbort: ownSignal ? destroyOptions.onAbort : "keep",
            onConflict: (c) => {
              conflict = c.reason;
            },
            onFailed: (error) => {
              failure = error;
            },
          });
          if (drained === "cancelled" || drained === "interrupted" || drained === "gone")
            return store.require(id);
          if (drained === "failed") {
            const cause = toCuzkitError(failure);
            throw new FleetCurioDbError(
              `${id} was not destroyed: its Curio drain failed (${cause.message}); the node was uncordoned, or its state stored to retry`,
              { instanceId: id, hint: cause.hint || undefined, cause: failure },
            );
          }
          if (drained === "conflict") {
            throw new FleetCurioNodeError(
              `${id} was not destroyed: its Curio node cannot be told apart (${conflict}); nothing was cordoned`,
              { instanceId: id },
            );
          }
          // Leaving `active` clears the stored drain in the same write.
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

import type { Clock } from "@cuzkit/core";
import { fencedExecutor } from "./fenced-executor.js";
import type { FleetStore } from "./fleet-store.js";
import {
  appendEvent,
  lastEventSeq,
  listEvents,
  noteUnknownInstance,
  settleUnknownInstance,
} from "./sql-events.js";
import type { SqlExecutor } from "./sql-executor.js";
import { appendLogLines, logTail } from "./sql-instance-logs.js";
import {
  noteDestroyAttempt,
  setCurioDrain,
  transition,
  transitionOrUndefined,
  updateInState,
} from "./sql-instance-transitions.js";
import {
  countByState,
  heartbeat,
  instanceByLabel,
  instanceTokenHash,
  listInstances,
  planInstance,
  requireInstance,
} from "./sql-instances.js";
import {
  excludeMachine,
  exclusionOf,
  liftExclusion,
  machineEvidence,
  recordEvidence,
} from "./sql-machine-evidence.js";
import { benchmarkResult, benchmarkSummaries, decideBenchmark, performanceStore } from "./sql-performance.js";
import { readInstance, type SqlStoreContext } from "./sql-store-context.js";
import { createWriterLease, type WriterLease } from "./writer-lease.js";

// Every query of the fleet's store, for SQLite and PostgreSQL alike: positional `?` parameters,
// standard SQL (ON CONFLICT, RETURNING, COALESCE) that both run unchanged. The queries live in
// modules of one concern each (sql-instances, sql-instance-transitions, sql-events,
// sql-performance, sql-machine-evidence, sql-instance-logs), over one SqlStoreContext; this file
// binds them into the FleetStore.

const sql = {
  saveSettings: `INSERT INTO fleet_settings (fleet, config_json, updated_at) VALUES (?, ?, ?)
    ON CONFLICT (fleet) DO UPDATE SET config_json = excluded.config_json, updated_at = excluded.updated_at`,
  loadSettings: "SELECT config_json FROM fleet_settings WHERE fleet = ?",
  schemaVersion: "SELECT MAX(version) AS v FROM schema_migrations",
} as const;

/** What createSqlFleetStore needs besides the executor. */
export interface SqlFleetStoreOptions {
  clock: Clock;
  kind: FleetStore["kind"];
  location: string;
  path: string | undefined;
  /** Closes the connection(s). */
  close: () => Promise<void>;
  /** The writer lease's epoch each event is written under (a fenced store's). Default: none (NULL). */
  writerEpoch?: (() => number | undefined) | undefined;
}

/** The fleet's settings and the schema version: the store's small reads outside the instances. */
function settingsMethods(
  ctx: SqlStoreContext,
): Pick<FleetStore, "schemaVersion" | "saveSettings" | "loadSettings"> {
  const { db } = ctx;
  return {
    schemaVersion: async () => (await db.get<{ v: number | null }>(sql.schemaVersion))?.v ?? 0,
    async saveSettings(fleet, config) {
      await db.run(sql.saveSettings, [fleet, JSON.stringify(config), ctx.clock.now()]);
    },
    async loadSettings(fleet) {
      const row = await db.get<{ config_json: string }>(sql.loadSettings, [fleet]);
      return row === undefined ? undefined : (JSON.parse(row.config_json) as Record<string, unknown>);
    },
  };
}

/** The fleet store over an executor: the one implementation of FleetStore, for both databases. */
export function createSqlFleetStore(db: SqlExecutor, options: SqlFleetStoreOptions): FleetStore {
  const writerEpoch = options.writerEpoch;
  const ctx: SqlStoreContext = { db, clock: options.clock, writerEpoch: () => writerEpoch?.() };
  return {
    kind: options.kind,
    location: options.location,
    path: options.path,
    performance: performanceStore(ctx),
    ...settingsMethods(ctx),
    plan: (input, planOptions) => planInstance(ctx, input, planOptions),
    get: (id) => readInstance(db, id),
    require: (id) => requireInstance(ctx, id),
    tokenHash: (id) => instanceTokenHash(ctx, id),
    getByLabel: (label) => instanceByLabel(ctx, label),
    list: (states) => listInstances(ctx, states),
    transition: (id, from, to, transitionOptions) => transition(ctx, id, from, to, transitionOptions),
    tryTransition: async (id, from, to, transitionOptions) =>
      (await transitionOrUndefined(ctx, id, from, to, transitionOptions)).record,
    update: (id, state, changes, eventType, detail) =>
      updateInState(ctx, id, state, changes, eventType, detail),
    setCurioDrain: (id, drain, drainEvent) => setCurioDrain(ctx, id, drain, drainEvent),
    heartbeat: (id) => heartbeat(ctx, id),
    appendEvent: (id, type, detail) => appendEvent(ctx, id, type, detail),
    events: (query) => listEvents(ctx, query),
    lastEventSeq: () => lastEventSeq(ctx),
    decideBenchmark: (id, result, to, reason, measured, extras) =>
      decideBenchmark(ctx, id, result, to, reason, measured, extras),
    benchmarkResult: (id) => benchmarkResult(ctx, id),
    benchmarkSummaries: (limit) => benchmarkSummaries(ctx, limit),
    noteDestroyAttempt: (id, nextAttemptAt, manual, error) =>
      noteDestroyAttempt(ctx, id, nextAttemptAt, manual, error),
    noteUnknownInstance: (vastId, label) => noteUnknownInstance(ctx, vastId, label),
    settleUnknownInstance: (vastId, outcome) => settleUnknownInstance(ctx, vastId, outcome),
    excludeMachine: (machineId, reason) => excludeMachine(ctx, machineId, reason),
    recordEvidence: (input) => recordEvidence(ctx, input),
    machineEvidence: (query = {}) => machineEvidence(ctx, query.machineId),
    machineExclusion: (machineId, policy) => exclusionOf(ctx, machineId, policy),
    isMachineExcluded: async (machineId, policy) => (await exclusionOf(ctx, machineId, policy)) !== undefined,
    liftExclusion: (machineId, reason) => liftExclusion(ctx, machineId, reason),
    appendLogLines: (id, lines, keepLines) => appendLogLines(ctx, id, lines, keepLines),
    logTail: (id, limit) => logTail(ctx, id, limit),
    countByState: () => countByState(ctx),
    writerLease: (leaseOptions) => createWriterLease(db, options.location, leaseOptions),
    fencedBy: (lease: WriterLease) =>
      createSqlFleetStore(
        fencedExecutor(db, (tx) => lease.fence(tx)),
        { ...options, writerEpoch: () => lease.epoch },
      ),
    close: options.close,
  };
}

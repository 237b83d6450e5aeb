// shape-exception: the FleetStore's SQL implementation, one method per store operation
import type { Clock } from "@cuzkit/core";
import { logTailDefaults } from "../defaults.js";
import {
  defaultExclusionPolicy,
  type EvidenceKind,
  type MachineEvidenceRecord,
  machineExclusion,
} from "../economics/machine-evidence.js";
import { instanceNotFound, transitionRefused } from "../errors.js";
import { canTransition, type InstanceState, instanceStates } from "../lifecycle.js";
import { fencedExecutor } from "./fenced-executor.js";
import type { FleetStore, TransitionChanges, TransitionOptions } from "./fleet-store.js";
import {
  type HostPerformanceInput,
  type HostPerformanceRecord,
  type HostPerformanceRow,
  type HostPerformanceStore,
  toHostPerformanceRecord,
} from "./host-performance.js";
import {
  type BenchmarkResultRecord,
  curioDrainColumns,
  curioDrainValues,
  type FleetEvent,
  type InstanceLogLine,
  type InstanceRecord,
  type InstanceRow,
  toInstanceRecord,
} from "./records.js";
import { insertRow, type SqlExecutor, type SqlValue } from "./sql-executor.js";
import { createWriterLease, type WriterLease } from "./writer-lease.js";

// Every query of the fleet's store, in one place, for SQLite and PostgreSQL alike: positional
// `?` parameters, standard SQL (ON CONFLICT, RETURNING, COALESCE) that both run unchanged.

interface EvidenceRow {
  seq: number;
  machine_id: number;
  host_id: number | null;
  instance_id: string | null;
  at: number;
  kind: string;
  reason: string;
}

const evidenceFromRow = (row: EvidenceRow): MachineEvidenceRecord => ({
  seq: row.seq,
  machineId: row.machine_id,
  hostId: row.host_id ?? undefined,
  instanceId: row.instance_id ?? undefined,
  at: row.at,
  kind: row.kind as EvidenceKind,
  reason: row.reason,
});

interface EventRow {
  seq: number;
  instance_id: string;
  at: number;
  type: string;
  from_state: string | null;
  to_state: string | null;
  detail_json: string | null;
}

/** A benchmark_results row without its report (what the summaries read). */
interface BenchmarkSummaryRow {
  instance_id: string;
  at: number;
  verdict: string;
  proofs_per_hour: number;
  min_proofs_per_hour: number;
  machine_id: number | null;
  gpu_name: string | null;
  num_gpus: number | null;
}

interface BenchmarkRow extends BenchmarkSummaryRow {
  report_json: string;
}

function benchmarkSummaryFromRow(row: BenchmarkSummaryRow): Omit<BenchmarkResultRecord, "report"> {
  return {
    instanceId: row.instance_id,
    at: row.at,
    verdict: row.verdict,
    proofsPerHour: row.proofs_per_hour,
    minProofsPerHour: row.min_proofs_per_hour,
    machineId: row.machine_id ?? undefined,
    gpuName: row.gpu_name ?? undefined,
    numGpus: row.num_gpus ?? undefined,
  };
}

/**
 * Decodes an `events` row into the record: the columns' snake_case to the record's names, SQL
 * NULL to undefined and the detail's JSON text parsed (the dashboard's eventView is the way out).
 */
function eventFromRow(row: EventRow): FleetEvent {
  return {
    seq: row.seq,
    instanceId: row.instance_id,
    at: row.at,
    type: row.type,
    fromState: (row.from_state ?? undefined) as InstanceState | undefined,
    toState: (row.to_state ?? undefined) as InstanceState | undefined,
    detail: row.detail_json === null ? undefined : (JSON.parse(row.detail_json) as Record<string, unknown>),
  };
}

// curioDrain is five columns (curioDrainColumns), set apart below.
const changeColumns: Record<Exclude<keyof TransitionChanges, "curioDrain">, string> = {
  vastId: "vast_id",
  machineId: "machine_id",
  reason: "reason",
  tunedConfig: "tuned_config",
  proofsPerHour: "proofs_per_hour",
  tokenHash: "token_hash",
  claimedProofsPerHour: "claimed_proofs_per_hour",
  benchmarkProofsPerHour: "benchmark_proofs_per_hour",
  modelProofsPerHour: "model_proofs_per_hour",
  rateBasis: "rate_basis",
  productionProofsPerHour: "production_proofs_per_hour",
  productionAt: "production_at",
  belowKeepSince: "below_keep_since",
};

const liveStates = "('booting','registered','params','warmup','benchmarking','active','draining')";

const sql = {
  insertEvent:
    "INSERT INTO events (instance_id, at, type, from_state, to_state, detail_json, writer_epoch) VALUES (?, ?, ?, ?, ?, ?, ?)",
  selectById: "SELECT * FROM instances WHERE id = ?",
  selectTokenHash: "SELECT token_hash FROM instances WHERE id = ?",
  selectByLabel: "SELECT * FROM instances WHERE label = ?",
  selectAll: "SELECT * FROM instances ORDER BY created_at, id",
  heartbeat: `UPDATE instances SET last_heartbeat_at = ? WHERE id = ? AND state IN ${liveStates}`,
  selectBenchmark: "SELECT * FROM benchmark_results WHERE instance_id = ?",
  selectBenchmarkSummaries: `SELECT instance_id, at, verdict, proofs_per_hour, min_proofs_per_hour, machine_id, gpu_name,
      num_gpus FROM benchmark_results ORDER BY at ASC LIMIT ?`,
  insertEvidence: `INSERT INTO machine_evidence (machine_id, host_id, instance_id, at, kind, reason)
    VALUES (?, ?, ?, ?, ?, ?) RETURNING *`,
  selectEvidence: "SELECT * FROM machine_evidence ORDER BY seq",
  selectEvidenceOfMachine: "SELECT * FROM machine_evidence WHERE machine_id = ? ORDER BY seq",
  insertUnknown:
    "INSERT INTO unknown_instances (vast_id, label, first_seen_at) VALUES (?, ?, ?) ON CONFLICT (vast_id) DO NOTHING",
  selectUnknown: "SELECT first_seen_at, outcome FROM unknown_instances WHERE vast_id = ?",
  updateUnknown: "UPDATE unknown_instances SET outcome = ? WHERE vast_id = ?",
  countStates: "SELECT state, COUNT(*) AS n FROM instances GROUP BY state",
  noteDestroyAttempt: `UPDATE instances SET destroy_attempts = destroy_attempts + 1,
      destroy_first_attempt_at = COALESCE(destroy_first_attempt_at, ?),
      destroy_next_attempt_at = ?, destroy_manual = ?, updated_at = ?
    WHERE id = ? AND state = 'destroying'`,
  saveSettings: `INSERT INTO fleet_settings (fleet, config_json, updated_at) VALUES (?, ?, ?)
    ON CONFLICT (fleet) DO UPDATE SET config_json = excluded.config_json, updated_at = excluded.updated_at`,
  loadSettings: "SELECT config_json FROM fleet_settings WHERE fleet = ?",
  lastEventSeq: "SELECT MAX(seq) AS seq FROM events",
  schemaVersion: "SELECT MAX(version) AS v FROM schema_migrations",
  selectPerformance: "SELECT * FROM host_performance ORDER BY seq",
  selectPerformanceOfMachine: "SELECT * FROM host_performance WHERE machine_id = ? ORDER BY seq",
  selectPerformanceOfClass: "SELECT * FROM host_performance WHERE class_key = ? ORDER BY seq",
  selectPerformanceOfInstance: "SELECT * FROM host_performance WHERE instance_id = ? ORDER BY seq",
  selectFailedInstances: "SELECT DISTINCT instance_id FROM events WHERE to_state = 'failed'",
  insertLogLine:
    "INSERT INTO instance_logs (instance_id, at, received_at, stream, line) VALUES (?, ?, ?, ?, ?)",
  // Everything at or before the instance's (keep+1)-th newest line goes (none when it has fewer).
  trimLogLines: `DELETE FROM instance_logs WHERE instance_id = ? AND seq <= (
      SELECT seq FROM instance_logs WHERE instance_id = ? ORDER BY seq DESC LIMIT 1 OFFSET ?)`,
  selectLogTail: `SELECT * FROM (SELECT * FROM instance_logs WHERE instance_id = ? ORDER BY seq DESC LIMIT ?) AS newest
    ORDER BY seq ASC`,
} as const;

interface LogRow {
  seq: number;
  instance_id: string;
  at: number;
  received_at: number;
  stream: string;
  line: string;
}

const logLineFromRow = (row: LogRow): InstanceLogLine => ({
  seq: row.seq,
  instanceId: row.instance_id,
  stream: row.stream,
  at: row.at,
  receivedAt: row.received_at,
  text: row.line,
});

/** An UPDATE of an instance guarded by its state: optional new state and columns. */
function guardedUpdateSql(fromCount: number, setsState: boolean, columns: readonly string[]): string {
  const sets = [
    "updated_at = ?",
    ...(setsState ? ["state = ?", "phase_started_at = ?", "phase_deadline_at = ?"] : []),
    ...columns.map((c) => `${c} = ?`),
  ];
  const guard = Array.from({ length: fromCount }, () => "?").join(", ");
  return `UPDATE instances SET ${sets.join(", ")} WHERE id = ? AND state IN (${guard})`;
}

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

/** The fleet store over an executor: the one implementation of FleetStore, for both databases. */
// shape-exception: the FleetStore's methods over one executor and its statements; each method is short
export function createSqlFleetStore(db: SqlExecutor, options: SqlFleetStoreOptions): FleetStore {
  const { clock } = options;

  const read = async (q: SqlExecutor, id: string): Promise<InstanceRecord | undefined> => {
    const row = await q.get<InstanceRow>(sql.selectById, [id]);
    return row === undefined ? undefined : toInstanceRecord(row);
  };
  const mustRead = async (q: SqlExecutor, id: string): Promise<InstanceRecord> =>
    (await read(q, id)) as InstanceRecord;

  const event = (
    q: SqlExecutor,
    id: string,
    type: string,
    from: InstanceState | undefined,
    to: InstanceState | undefined,
    detail: Record<string, unknown> | undefined,
  ) =>
    q.run(sql.insertEvent, [
      id,
      clock.now(),
      type,
      from ?? null,
      to ?? null,
      detail === undefined ? null : JSON.stringify(detail),
      options.writerEpoch?.() ?? null,
    ]);

  async function guardedUpdate(
    q: SqlExecutor,
    id: string,
    fromStates: readonly InstanceState[],
    to: { state: InstanceState; deadlineAt: number | null } | undefined,
    changes: TransitionChanges,
  ): Promise<boolean> {
    const now = clock.now();
    const columns: string[] = [];
    const values: SqlValue[] = [];
    for (const [key, column] of Object.entries(changeColumns) as [
      Exclude<keyof TransitionChanges, "curioDrain">,
      string,
    ][]) {
      if (!(key in changes)) continue;
      columns.push(column);
      values.push(changes[key] ?? null);
    }
    // A drain belongs to an active instance: leaving `active` ends it (the destroy took over),
    // in the same write, so no stale drain is resumed later.
    if ("curioDrain" in changes || (to !== undefined && to.state !== "active")) {
      columns.push(...curioDrainColumns);
      values.push(...curioDrainValues(changes.curioDrain));
    }
    const params: SqlValue[] = [now];
    if (to !== undefined) params.push(to.state, now, to.deadlineAt);
    params.push(...values, id, ...fromStates);
    const { changes: changed } = await q.run(
      guardedUpdateSql(fromStates.length, to !== undefined, columns),
      params,
    );
    return changed === 1;
  }

  async function transitionIn(
    q: SqlExecutor,
    id: string,
    from: InstanceState | readonly InstanceState[],
    to: InstanceState,
    options: TransitionOptions = {},
  ): Promise<{ record: InstanceRecord | undefined; actual: InstanceState | undefined }> {
    const fromStates = (typeof from === "string" ? [from] : from).filter((state) => canTransition(state, to));
    const before = await read(q, id);
    if (fromStates.length === 0) return { record: undefined, actual: before?.state };
    const ms = before?.deadlinesMs[to];
    const deadlineAt = ms === undefined ? null : clock.now() + ms;
    if (!(await guardedUpdate(q, id, fromStates, { state: to, deadlineAt }, options.changes ?? {}))) {
      return { record: undefined, actual: (await read(q, id))?.state };
    }
    await event(q, id, options.eventType ?? "transition", before?.state, to, options.detail);
    return { record: await read(q, id), actual: to };
  }

  const transitionOrUndefined = (
    id: string,
    from: InstanceState | readonly InstanceState[],
    to: InstanceState,
    options?: TransitionOptions,
  ) => db.transaction((tx) => transitionIn(tx, id, from, to, options));

  const recordPerformance = async (q: SqlExecutor, input: HostPerformanceInput) => {
    const insert = insertRow(
      "host_performance",
      {
        kind: input.kind,
        instance_id: input.instanceId,
        at: input.at ?? clock.now(),
        verdict: input.verdict ?? null,
        proofs_per_hour: input.proofsPerHour,
        predicted_proofs_per_hour: input.predictedProofsPerHour ?? null,
        dph: input.dphPerHour,
        offer_id: input.offerId,
        machine_id: input.machineId ?? null,
        host_id: input.hostId ?? null,
        gpu_name: input.gpuName,
        num_gpus: input.numGpus,
        cpu_ram_bytes: input.cpuRamBytes,
        cpu_cores: input.cpuCores ?? null,
        cpu_name: input.cpuName ?? null,
        class_key: input.classKey,
        window_ms: input.windowMs ?? null,
        config: input.config ?? null,
        records_json: input.records === undefined ? null : JSON.stringify(input.records),
        source: input.source ?? "agent",
        task_type: input.taskType ?? null,
        failures: input.failures ?? null,
      },
      "RETURNING *",
    );
    const row = await q.get<HostPerformanceRow>(insert.sql, insert.params);
    return toHostPerformanceRecord(row as HostPerformanceRow);
  };

  const performance: HostPerformanceStore = {
    record: (input) => recordPerformance(db, input),
    async list(query = {}): Promise<HostPerformanceRecord[]> {
      const rows =
        query.instanceId !== undefined
          ? await db.all<HostPerformanceRow>(sql.selectPerformanceOfInstance, [query.instanceId])
          : query.machineId !== undefined
            ? await db.all<HostPerformanceRow>(sql.selectPerformanceOfMachine, [query.machineId])
            : query.classKey !== undefined
              ? await db.all<HostPerformanceRow>(sql.selectPerformanceOfClass, [query.classKey])
              : await db.all<HostPerformanceRow>(sql.selectPerformance);
      return rows.map(toHostPerformanceRecord);
    },
    failedInstanceIds: async () =>
      new Set((await db.all<{ instance_id: string }>(sql.selectFailedInstances)).map((r) => r.instance_id)),
  };

  const insertEvidence = async (q: SqlExecutor, input: Parameters<FleetStore["recordEvidence"]>[0]) =>
    evidenceFromRow(
      (await q.get<EvidenceRow>(sql.insertEvidence, [
        input.machineId,
        input.hostId ?? null,
        input.instanceId ?? null,
        input.at ?? clock.now(),
        input.kind,
        input.reason,
      ])) as EvidenceRow,
    );
  const evidenceOf = async (machineId: number | undefined) =>
    (machineId === undefined
      ? await db.all<EvidenceRow>(sql.selectEvidence)
      : await db.all<EvidenceRow>(sql.selectEvidenceOfMachine, [machineId])
    ).map(evidenceFromRow);

  const store: FleetStore = {
    kind: options.kind,
    location: options.location,
    path: options.path,
    performance,
    async schemaVersion() {
      return (await db.get<{ v: number | null }>(sql.schemaVersion))?.v ?? 0;
    },
    plan(input, planOptions = {}) {
      return db.transaction(async (tx) => {
        const lock = tx.dialect.lockForWrite("instances");
        if (lock !== undefined) await tx.run(lock);
        if (planOptions.guard !== undefined) {
          const rows = await tx.all<InstanceRow>(sql.selectAll);
          planOptions.guard(rows.map(toInstanceRecord));
        }
        const now = clock.now();
        const insert = insertRow("instances", {
          id: input.id,
          fleet: input.fleet,
          label: input.label,
          state: "planned",
          offer_id: input.offer.offerId,
          machine_id: input.offer.machineId ?? null,
          dph: input.offer.dphTotal,
          offer_json: JSON.stringify(input.offer),
          deadlines_json: JSON.stringify(input.deadlinesMs),
          token_hash: input.tokenHash,
          phase_started_at: now,
          phase_deadline_at: null,
          created_at: now,
          updated_at: now,
        });
        await tx.run(insert.sql, insert.params);
        await event(tx, input.id, "planned", undefined, "planned", {
          offerId: input.offer.offerId,
          label: input.label,
        });
        return mustRead(tx, input.id);
      });
    },
    get: (id) => read(db, id),
    async require(id) {
      const record = await read(db, id);
      if (record === undefined) throw instanceNotFound(id);
      return record;
    },
    async tokenHash(id) {
      return (await db.get<{ token_hash: string }>(sql.selectTokenHash, [id]))?.token_hash;
    },
    async getByLabel(label) {
      const row = await db.get<InstanceRow>(sql.selectByLabel, [label]);
      return row === undefined ? undefined : toInstanceRecord(row);
    },
    async list(states) {
      const rows = (await db.all<InstanceRow>(sql.selectAll)).map(toInstanceRecord);
      return states === undefined ? rows : rows.filter((r) => states.includes(r.state));
    },
    async transition(id, from, to, transitionOptions) {
      const { record, actual } = await transitionOrUndefined(id, from, to, transitionOptions);
      if (record === undefined) throw transitionRefused(id, from, to, actual);
      return record;
    },
    tryTransition: async (id, from, to, transitionOptions) =>
      (await transitionOrUndefined(id, from, to, transitionOptions)).record,
    update(id, state, changes, eventType, detail) {
      return db.transaction(async (tx) => {
        if (!(await guardedUpdate(tx, id, [state], undefined, changes))) {
          throw transitionRefused(id, state, state, (await read(tx, id))?.state);
        }
        await event(tx, id, eventType, state, state, detail);
        return mustRead(tx, id);
      });
    },
    setCurioDrain(id, drain, drainEvent) {
      return db.transaction(async (tx) => {
        const sets = curioDrainColumns.map((c) => `${c} = ?`).join(", ");
        const guard = drain === undefined ? "" : " AND state = 'active'";
        const { changes } = await tx.run(
          `UPDATE instances SET updated_at = ?, ${sets} WHERE id = ?${guard}`,
          [clock.now(), ...curioDrainValues(drain), id],
        );
        if (changes !== 1) return undefined;
        if (drainEvent !== undefined)
          await event(tx, id, drainEvent.type, undefined, undefined, drainEvent.detail);
        return mustRead(tx, id);
      });
    },
    heartbeat: async (id) => (await db.run(sql.heartbeat, [clock.now(), id])).changes === 1,
    async appendEvent(id, type, detail) {
      await event(db, id, type, undefined, undefined, detail);
    },
    async events(query = {}) {
      const where: string[] = ["seq > ?"];
      const params: SqlValue[] = [query.afterSeq ?? 0];
      if (query.instanceId !== undefined) {
        where.push("instance_id = ?");
        params.push(query.instanceId);
      }
      const rows = await db.all<EventRow>(
        `SELECT * FROM events WHERE ${where.join(" AND ")} ORDER BY seq LIMIT ?`,
        [...params, query.limit ?? 10_000],
      );
      return rows.map(eventFromRow);
    },
    async lastEventSeq() {
      return (await db.get<{ seq: number | null }>(sql.lastEventSeq))?.seq ?? 0;
    },
    decideBenchmark(id, result, to, reason, measured, extras = {}) {
      return db.transaction(async (tx) => {
        const { record, actual } = await transitionIn(tx, id, "benchmarking", to, {
          changes: { proofsPerHour: result.proofsPerHour, reason, ...extras.changes },
          eventType: "decision",
          detail: { verdict: result.verdict, proofsPerHour: result.proofsPerHour, reason },
        });
        if (record === undefined) throw transitionRefused(id, "benchmarking", to, actual);
        for (const extra of extras.events ?? [])
          await event(tx, id, extra.type, undefined, undefined, extra.detail);
        const insert = insertRow("benchmark_results", {
          instance_id: id,
          at: clock.now(),
          verdict: result.verdict,
          proofs_per_hour: result.proofsPerHour,
          min_proofs_per_hour: result.minProofsPerHour,
          machine_id: result.machineId ?? null,
          gpu_name: result.gpuName ?? null,
          num_gpus: result.numGpus ?? null,
          report_json: JSON.stringify(result.report),
        });
        await tx.run(insert.sql, insert.params);
        if (measured !== undefined) await recordPerformance(tx, measured);
        return record;
      });
    },
    async benchmarkResult(id) {
      const row = await db.get<BenchmarkRow>(sql.selectBenchmark, [id]);
      if (row === undefined) return undefined;
      return {
        ...benchmarkSummaryFromRow(row),
        report: JSON.parse(row.report_json) as Record<string, unknown>,
      };
    },
    async benchmarkSummaries(limit = 1000) {
      return (await db.all<BenchmarkSummaryRow>(sql.selectBenchmarkSummaries, [limit])).map(
        benchmarkSummaryFromRow,
      );
    },
    noteDestroyAttempt(id, nextAttemptAt, manual, error) {
      return db.transaction(async (tx) => {
        const now = clock.now();
        const { changes } = await tx.run(sql.noteDestroyAttempt, [
          now,
          nextAttemptAt ?? null,
          manual ? 1 : 0,
          now,
          id,
        ]);
        if (changes !== 1) {
          throw transitionRefused(id, "destroying", "destroying", (await read(tx, id))?.state);
        }
        await event(tx, id, manual ? "destroy-manually" : "destroy-failed", "destroying", "destroying", {
          error,
          nextAttemptAt,
        });
        return mustRead(tx, id);
      });
    },
    noteUnknownInstance(vastId, label) {
      return db.transaction(async (tx) => {
        if ((await tx.run(sql.insertUnknown, [vastId, label, clock.now()])).changes === 1) {
          await event(tx, `vast-${vastId}`, "unknown-instance", undefined, undefined, { vastId, label });
        }
        const row = (await tx.get<{ first_seen_at: number; outcome: string | null }>(sql.selectUnknown, [
          vastId,
        ])) as { first_seen_at: number; outcome: string | null };
        return { firstSeenAt: row.first_seen_at, outcome: row.outcome ?? undefined };
      });
    },
    async settleUnknownInstance(vastId, outcome) {
      await db.transaction(async (tx) => {
        await tx.run(sql.updateUnknown, [outcome, vastId]);
        await event(tx, `vast-${vastId}`, `unknown-instance-${outcome}`, undefined, undefined, { vastId });
      });
    },
    async saveSettings(fleet, config) {
      await db.run(sql.saveSettings, [fleet, JSON.stringify(config), clock.now()]);
    },
    async loadSettings(fleet) {
      const row = await db.get<{ config_json: string }>(sql.loadSettings, [fleet]);
      return row === undefined ? undefined : (JSON.parse(row.config_json) as Record<string, unknown>);
    },
    async excludeMachine(machineId, reason) {
      await insertEvidence(db, {
        machineId,
        hostId: undefined,
        instanceId: undefined,
        kind: "cordon",
        reason,
      });
    },
    recordEvidence: (input) => insertEvidence(db, input),
    machineEvidence: (query = {}) => evidenceOf(query.machineId),
    machineExclusion: async (machineId, policy = defaultExclusionPolicy) =>
      machineExclusion(await evidenceOf(machineId), clock.now(), policy),
    isMachineExcluded: async (machineId, policy = defaultExclusionPolicy) =>
      machineExclusion(await evidenceOf(machineId), clock.now(), policy) !== undefined,
    liftExclusion(machineId, reason) {
      return db.transaction(async (tx) => {
        const lifted = await insertEvidence(tx, {
          machineId,
          hostId: undefined,
          instanceId: undefined,
          kind: "lift",
          reason,
        });
        await event(tx, `machine-${machineId}`, "machine-lifted", undefined, undefined, {
          machineId,
          reason,
        });
        return lifted;
      });
    },
    async appendLogLines(id, lines, keepLines = logTailDefaults.storeKeepLines) {
      if (lines.length === 0) return;
      await db.transaction(async (tx) => {
        const now = clock.now();
        // Only the newest keepLines of this shipment can survive the trim: the rest is not written.
        for (const line of lines.slice(-Math.max(1, keepLines)))
          await tx.run(sql.insertLogLine, [id, line.at, now, line.stream, line.text]);
        await tx.run(sql.trimLogLines, [id, id, Math.max(1, keepLines)]);
      });
    },
    async logTail(id, limit = logTailDefaults.storeKeepLines) {
      return (await db.all<LogRow>(sql.selectLogTail, [id, limit])).map(logLineFromRow);
    },
    async countByState() {
      const counts = Object.fromEntries(instanceStates.map((s) => [s, 0])) as Record<InstanceState, number>;
      for (const row of await db.all<{ state: InstanceState; n: number }>(sql.countStates)) {
        counts[row.state] = row.n;
      }
      return counts;
    },
    writerLease: (leaseOptions) => createWriterLease(db, options.location, leaseOptions),
    fencedBy: (lease: WriterLease) =>
      createSqlFleetStore(
        fencedExecutor(db, (tx) => lease.fence(tx)),
        { ...options, writerEpoch: () => lease.epoch },
      ),
    close: options.close,
  };
  return store;
}

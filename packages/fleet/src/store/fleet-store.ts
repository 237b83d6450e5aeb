import { type Clock, systemClock } from "@cuzkit/core";
import { FleetInstanceNotFoundError, FleetTransitionError } from "../errors.js";
import { canTransition, type InstanceState, instanceStates } from "../lifecycle.js";
import { type HostPerformanceStore, hostPerformanceStore } from "./host-performance.js";
import { openDatabase, type SqliteDatabase, schemaVersion } from "./open-database.js";
import {
  type BenchmarkResultRecord,
  type FleetEvent,
  type InstanceRecord,
  type InstanceRow,
  type OfferSnapshot,
  toInstanceRecord,
} from "./records.js";

/** What a new planned instance needs. */
export interface PlanInstanceInput {
  id: string;
  fleet: string;
  label: string;
  offer: OfferSnapshot;
  /** Deadline of each timed state, in ms after entering it. */
  deadlinesMs: Record<string, number>;
  /** sha256 (hex) of the agent token. */
  tokenHash: string;
}

/** Columns a transition may set along with the state. */
export interface TransitionChanges {
  vastId?: number | undefined;
  machineId?: number | undefined;
  reason?: string | undefined;
  tunedConfig?: string | undefined;
  proofsPerHour?: number | undefined;
  tokenHash?: string | undefined;
}

/** Options of a transition. */
export interface TransitionOptions {
  /** Columns set in the same update. */
  changes?: TransitionChanges | undefined;
  /** Event type. Default "transition". */
  eventType?: string | undefined;
  /** Event detail (JSON). */
  detail?: Record<string, unknown> | undefined;
}

/** Options of openFleetStore. */
export interface FleetStoreOptions {
  /** The SQLite file, or ":memory:". Required. */
  path: string;
  /** Clock for event and row times. Default: the system clock. */
  clock?: Clock | undefined;
}

/** The fleet's state: every read and write goes straight to SQLite, so a restart loses nothing. */
export interface FleetStore {
  readonly path: string;
  /** The raw database, for benchmarks and tests. */
  readonly db: SqliteDatabase;
  /** Highest applied migration. */
  schemaVersion(): number;
  /** Every measured rate (benchmarks and production), for calibration and ranking. */
  readonly performance: HostPerformanceStore;
  /** Inserts a planned instance and its first event. */
  plan(input: PlanInstanceInput): InstanceRecord;
  /** One instance, or undefined. */
  get(id: string): InstanceRecord | undefined;
  /** One instance; throws FleetInstanceNotFoundError. */
  require(id: string): InstanceRecord;
  /** The stored token hash of an instance (the agent endpoints' hot path), or undefined. */
  tokenHash(id: string): string | undefined;
  /** The instance with that Vast label, or undefined. */
  getByLabel(label: string): InstanceRecord | undefined;
  /** Instances, optionally only in some states, oldest first. */
  list(states?: readonly InstanceState[]): InstanceRecord[];
  /**
   * Moves an instance `from` (one state or any of several) `to` with a guarded
   * `UPDATE ... WHERE id = ? AND state = ?` and its event, in one transaction. Throws
   * FleetTransitionError, changing nothing, when the instance is elsewhere or the move is not in
   * the lifecycle table.
   */
  transition(
    id: string,
    from: InstanceState | readonly InstanceState[],
    to: InstanceState,
    options?: TransitionOptions,
  ): InstanceRecord;
  /** As transition, but undefined instead of throwing when the guard does not match. */
  tryTransition(
    id: string,
    from: InstanceState | readonly InstanceState[],
    to: InstanceState,
    options?: TransitionOptions,
  ): InstanceRecord | undefined;
  /** Sets columns without a state change (Vast id after a create), guarded by the state, with an event. */
  update(
    id: string,
    state: InstanceState,
    changes: TransitionChanges,
    eventType: string,
    detail?: Record<string, unknown>,
  ): InstanceRecord;
  /** Records a heartbeat time; false when the instance is not in a live state. Not an event (too many). */
  heartbeat(id: string): boolean;
  /** Appends an event without changing the instance. */
  appendEvent(id: string, type: string, detail?: Record<string, unknown>): void;
  /** Events, of one instance or all, in order; `afterSeq` for paging. */
  events(options?: {
    instanceId?: string | undefined;
    afterSeq?: number | undefined;
    limit?: number | undefined;
  }): FleetEvent[];
  /** Saves the benchmark result and moves benchmarking -> `to` in one transaction. */
  decideBenchmark(
    id: string,
    result: Omit<BenchmarkResultRecord, "instanceId" | "at">,
    to: "active" | "rejected" | "failed",
    reason: string,
  ): InstanceRecord;
  /** The benchmark result of an instance, if any. */
  benchmarkResult(id: string): BenchmarkResultRecord | undefined;
  /** Notes a failed destroy: attempts + 1, the next try time, and whether the operator must step in. */
  noteDestroyAttempt(
    id: string,
    nextAttemptAt: number | undefined,
    manual: boolean,
    error: string,
  ): InstanceRecord;
  /** Notes a labelled Vast instance without a live row; returns when it was first seen (epoch ms). */
  noteUnknownInstance(vastId: number, label: string): { firstSeenAt: number; outcome: string | undefined };
  /** Records what was done about an unknown instance (`destroyed`, `adopted`). */
  settleUnknownInstance(vastId: number, outcome: string): void;
  /** Saves a fleet's config (what `fleet serve` was started with). */
  saveSettings(fleet: string, config: Record<string, unknown>): void;
  /** A fleet's saved config, or undefined. */
  loadSettings(fleet: string): Record<string, unknown> | undefined;
  /** Keeps a machine out of later rentals. */
  excludeMachine(machineId: number, reason: string): void;
  /** True when the machine is excluded. */
  isMachineExcluded(machineId: number): boolean;
  /** Instances per state (every state present, 0 when none). */
  countByState(): Record<InstanceState, number>;
  /** Closes the database. */
  close(): void;
}

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
export interface BenchmarkSummaryRow {
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

/** A benchmark_results row as a record, less its report. */
export function benchmarkSummaryFromRow(row: BenchmarkSummaryRow): Omit<BenchmarkResultRecord, "report"> {
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

const changeColumns: Record<keyof TransitionChanges, string> = {
  vastId: "vast_id",
  machineId: "machine_id",
  reason: "reason",
  tunedConfig: "tuned_config",
  proofsPerHour: "proofs_per_hour",
  tokenHash: "token_hash",
};

/** Opens the fleet's store (creating and migrating it). */
export function openFleetStore(options: FleetStoreOptions): FleetStore {
  const clock = options.clock ?? systemClock;
  const db = openDatabase(options.path);

  const insertInstance = db.prepare(`
    INSERT INTO instances (id, fleet, label, state, offer_id, machine_id, dph, offer_json, deadlines_json,
      token_hash, phase_started_at, phase_deadline_at, created_at, updated_at)
    VALUES (@id, @fleet, @label, 'planned', @offerId, @machineId, @dph, @offerJson, @deadlinesJson,
      @tokenHash, @now, @deadline, @now, @now)`);
  const insertEvent = db.prepare(
    "INSERT INTO events (instance_id, at, type, from_state, to_state, detail_json) VALUES (?, ?, ?, ?, ?, ?)",
  );
  const selectById = db.prepare("SELECT * FROM instances WHERE id = ?");
  const selectTokenHash = db.prepare("SELECT token_hash FROM instances WHERE id = ?").pluck();
  const selectByLabel = db.prepare("SELECT * FROM instances WHERE label = ?");
  const selectAll = db.prepare("SELECT * FROM instances ORDER BY created_at, id");
  const heartbeatUpdate = db.prepare(
    "UPDATE instances SET last_heartbeat_at = ? WHERE id = ? AND state IN ('booting','registered','params','warmup','benchmarking','active','draining')",
  );
  const insertBenchmark = db.prepare(`
    INSERT INTO benchmark_results (instance_id, at, verdict, proofs_per_hour, min_proofs_per_hour, machine_id, gpu_name, num_gpus, report_json)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const selectBenchmark = db.prepare("SELECT * FROM benchmark_results WHERE instance_id = ?");
  const insertExcluded = db.prepare(
    "INSERT INTO excluded_machines (machine_id, at, reason) VALUES (?, ?, ?) ON CONFLICT (machine_id) DO NOTHING",
  );
  const selectExcluded = db.prepare("SELECT 1 FROM excluded_machines WHERE machine_id = ?");
  const insertUnknown = db.prepare(
    "INSERT INTO unknown_instances (vast_id, label, first_seen_at) VALUES (?, ?, ?) ON CONFLICT (vast_id) DO NOTHING",
  );
  const selectUnknown = db.prepare("SELECT first_seen_at, outcome FROM unknown_instances WHERE vast_id = ?");
  const updateUnknown = db.prepare("UPDATE unknown_instances SET outcome = ? WHERE vast_id = ?");
  const countStates = db.prepare("SELECT state, COUNT(*) AS n FROM instances GROUP BY state");
  const updateStatements = new Map<string, ReturnType<SqliteDatabase["prepare"]>>();

  const read = (id: string): InstanceRecord | undefined => {
    const row = selectById.get(id) as InstanceRow | undefined;
    return row === undefined ? undefined : toInstanceRecord(row);
  };

  const event = (
    id: string,
    type: string,
    from: InstanceState | undefined,
    to: InstanceState | undefined,
    detail: Record<string, unknown> | undefined,
  ) => {
    insertEvent.run(
      id,
      clock.now(),
      type,
      from ?? null,
      to ?? null,
      detail === undefined ? null : JSON.stringify(detail),
    );
  };

  /** A cached UPDATE for this shape of change: state guard, optional new state and columns. */
  function updateStatement(fromCount: number, setsState: boolean, columns: readonly string[]) {
    const key = `${fromCount}|${setsState}|${columns.join(",")}`;
    let statement = updateStatements.get(key);
    if (statement === undefined) {
      const sets = [
        "updated_at = @now",
        ...(setsState ? ["state = @to", "phase_started_at = @now", "phase_deadline_at = @deadline"] : []),
        ...columns.map((c) => `${c} = @${c}`),
      ];
      const guard = Array.from({ length: fromCount }, (_, i) => `@from${i}`).join(", ");
      statement = db.prepare(
        `UPDATE instances SET ${sets.join(", ")} WHERE id = @id AND state IN (${guard})`,
      );
      updateStatements.set(key, statement);
    }
    return statement;
  }

  function guardedUpdate(
    id: string,
    fromStates: readonly InstanceState[],
    to: InstanceState | undefined,
    changes: TransitionChanges,
    deadlineFor: (record: InstanceRecord | undefined) => number | null,
  ): boolean {
    const columns: string[] = [];
    const params: Record<string, unknown> = { id, now: clock.now() };
    for (const [key, column] of Object.entries(changeColumns) as [keyof TransitionChanges, string][]) {
      if (!(key in changes)) continue;
      columns.push(column);
      params[column] = changes[key] ?? null;
    }
    fromStates.forEach((state, i) => {
      params[`from${i}`] = state;
    });
    if (to !== undefined) {
      params.to = to;
      params.deadline = deadlineFor(read(id));
    }
    return updateStatement(fromStates.length, to !== undefined, columns).run(params).changes === 1;
  }

  function transitionOrUndefined(
    id: string,
    from: InstanceState | readonly InstanceState[],
    to: InstanceState,
    options: TransitionOptions = {},
  ): { record: InstanceRecord | undefined; actual: InstanceState | undefined } {
    const fromStates = (typeof from === "string" ? [from] : from).filter((state) => canTransition(state, to));
    return db.transaction(() => {
      const before = read(id);
      if (fromStates.length === 0) return { record: undefined, actual: before?.state };
      const deadlineFor = (record: InstanceRecord | undefined) => {
        const ms = record?.deadlinesMs[to];
        return ms === undefined ? null : clock.now() + ms;
      };
      if (!guardedUpdate(id, fromStates, to, options.changes ?? {}, deadlineFor)) {
        return { record: undefined, actual: before?.state };
      }
      event(id, options.eventType ?? "transition", before?.state, to, options.detail);
      return { record: read(id), actual: to };
    })();
  }

  const store: FleetStore = {
    path: options.path,
    db,
    schemaVersion: () => schemaVersion(db),
    performance: hostPerformanceStore(db, clock),
    plan(input) {
      return db.transaction(() => {
        const now = clock.now();
        insertInstance.run({
          id: input.id,
          fleet: input.fleet,
          label: input.label,
          offerId: input.offer.offerId,
          machineId: input.offer.machineId ?? null,
          dph: input.offer.dphTotal,
          offerJson: JSON.stringify(input.offer),
          deadlinesJson: JSON.stringify(input.deadlinesMs),
          tokenHash: input.tokenHash,
          now,
          deadline: null,
        });
        event(input.id, "planned", undefined, "planned", {
          offerId: input.offer.offerId,
          label: input.label,
        });
        return read(input.id) as InstanceRecord;
      })();
    },
    get: read,
    require(id) {
      const record = read(id);
      if (record === undefined) throw new FleetInstanceNotFoundError(id);
      return record;
    },
    tokenHash: (id) => selectTokenHash.get(id) as string | undefined,
    getByLabel(label) {
      const row = selectByLabel.get(label) as InstanceRow | undefined;
      return row === undefined ? undefined : toInstanceRecord(row);
    },
    list(states) {
      const rows = (selectAll.all() as InstanceRow[]).map(toInstanceRecord);
      return states === undefined ? rows : rows.filter((r) => states.includes(r.state));
    },
    transition(id, from, to, options) {
      const { record, actual } = transitionOrUndefined(id, from, to, options);
      if (record === undefined) throw new FleetTransitionError(id, from, to, actual);
      return record;
    },
    tryTransition: (id, from, to, options) => transitionOrUndefined(id, from, to, options).record,
    update(id, state, changes, eventType, detail) {
      return db.transaction(() => {
        if (!guardedUpdate(id, [state], undefined, changes, () => null)) {
          throw new FleetTransitionError(id, state, state, read(id)?.state);
        }
        event(id, eventType, state, state, detail);
        return read(id) as InstanceRecord;
      })();
    },
    heartbeat: (id) => heartbeatUpdate.run(clock.now(), id).changes === 1,
    appendEvent(id, type, detail) {
      event(id, type, undefined, undefined, detail);
    },
    events(query = {}) {
      const where: string[] = ["seq > ?"];
      const params: unknown[] = [query.afterSeq ?? 0];
      if (query.instanceId !== undefined) {
        where.push("instance_id = ?");
        params.push(query.instanceId);
      }
      const rows = db
        .prepare(`SELECT * FROM events WHERE ${where.join(" AND ")} ORDER BY seq LIMIT ?`)
        .all(...params, query.limit ?? 10_000) as EventRow[];
      return rows.map((row) => ({
        seq: row.seq,
        instanceId: row.instance_id,
        at: row.at,
        type: row.type,
        fromState: (row.from_state ?? undefined) as InstanceState | undefined,
        toState: (row.to_state ?? undefined) as InstanceState | undefined,
        detail:
          row.detail_json === null ? undefined : (JSON.parse(row.detail_json) as Record<string, unknown>),
      }));
    },
    decideBenchmark(id, result, to, reason) {
      return db.transaction(() => {
        const record = store.transition(id, "benchmarking", to, {
          changes: { proofsPerHour: result.proofsPerHour, reason },
          eventType: "decision",
          detail: { verdict: result.verdict, proofsPerHour: result.proofsPerHour, reason },
        });
        insertBenchmark.run(
          id,
          clock.now(),
          result.verdict,
          result.proofsPerHour,
          result.minProofsPerHour,
          result.machineId ?? null,
          result.gpuName ?? null,
          result.numGpus ?? null,
          JSON.stringify(result.report),
        );
        return record;
      })();
    },
    benchmarkResult(id) {
      const row = selectBenchmark.get(id) as BenchmarkRow | undefined;
      if (row === undefined) return undefined;
      return {
        ...benchmarkSummaryFromRow(row),
        report: JSON.parse(row.report_json) as Record<string, unknown>,
      };
    },
    noteDestroyAttempt(id, nextAttemptAt, manual, error) {
      return db.transaction(() => {
        const now = clock.now();
        const changed = db
          .prepare(
            `UPDATE instances SET destroy_attempts = destroy_attempts + 1,
               destroy_first_attempt_at = COALESCE(destroy_first_attempt_at, ?),
               destroy_next_attempt_at = ?, destroy_manual = ?, updated_at = ?
             WHERE id = ? AND state = 'destroying'`,
          )
          .run(now, nextAttemptAt ?? null, manual ? 1 : 0, now, id).changes;
        if (changed !== 1) throw new FleetTransitionError(id, "destroying", "destroying", read(id)?.state);
        event(id, manual ? "destroy-manually" : "destroy-failed", "destroying", "destroying", {
          error,
          nextAttemptAt,
        });
        return read(id) as InstanceRecord;
      })();
    },
    noteUnknownInstance(vastId, label) {
      return db.transaction(() => {
        if (insertUnknown.run(vastId, label, clock.now()).changes === 1) {
          event(`vast-${vastId}`, "unknown-instance", undefined, undefined, { vastId, label });
        }
        const row = selectUnknown.get(vastId) as { first_seen_at: number; outcome: string | null };
        return { firstSeenAt: row.first_seen_at, outcome: row.outcome ?? undefined };
      })();
    },
    settleUnknownInstance(vastId, outcome) {
      db.transaction(() => {
        updateUnknown.run(outcome, vastId);
        event(`vast-${vastId}`, `unknown-instance-${outcome}`, undefined, undefined, { vastId });
      })();
    },
    saveSettings(fleet, config) {
      db.prepare(
        `INSERT INTO fleet_settings (fleet, config_json, updated_at) VALUES (?, ?, ?)
         ON CONFLICT (fleet) DO UPDATE SET config_json = excluded.config_json, updated_at = excluded.updated_at`,
      ).run(fleet, JSON.stringify(config), clock.now());
    },
    loadSettings(fleet) {
      const row = db.prepare("SELECT config_json FROM fleet_settings WHERE fleet = ?").get(fleet) as
        | { config_json: string }
        | undefined;
      return row === undefined ? undefined : (JSON.parse(row.config_json) as Record<string, unknown>);
    },
    excludeMachine(machineId, reason) {
      insertExcluded.run(machineId, clock.now(), reason);
    },
    isMachineExcluded: (machineId) => selectExcluded.get(machineId) !== undefined,
    countByState() {
      const counts = Object.fromEntries(instanceStates.map((s) => [s, 0])) as Record<InstanceState, number>;
      for (const row of countStates.all() as { state: InstanceState; n: number }[]) counts[row.state] = row.n;
      return counts;
    },
    close: () => db.close(),
  };
  return store;
}

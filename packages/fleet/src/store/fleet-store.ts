import type { Clock } from "@cuzkit/core";
import type {
  ExclusionPolicy,
  MachineEvidenceInput,
  MachineEvidenceRecord,
  MachineExclusion,
} from "../economics/machine-evidence.js";
import type { InstanceState } from "../lifecycle.js";
import type { HostPerformanceInput, HostPerformanceStore } from "./host-performance.js";
import type { SqliteDatabase } from "./open-database.js";
import type {
  BenchmarkResultRecord,
  CurioDrainRecord,
  FleetEvent,
  InstanceLogLine,
  InstanceLogLineInput,
  InstanceRecord,
  OfferSnapshot,
} from "./records.js";
import type { WriterLease, WriterLeaseOptions } from "./writer-lease.js";

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

/** Columns a transition may set along with the state (the rate columns as InstanceRecord has them). */
export interface TransitionChanges
  extends Partial<
    Pick<
      InstanceRecord,
      | "claimedProofsPerHour"
      | "benchmarkProofsPerHour"
      | "modelProofsPerHour"
      | "rateBasis"
      | "productionProofsPerHour"
      | "productionAt"
      | "belowKeepSince"
      | "curioDrain"
    >
  > {
  vastId?: number | undefined;
  machineId?: number | undefined;
  reason?: string | undefined;
  tunedConfig?: string | undefined;
  proofsPerHour?: number | undefined;
  tokenHash?: string | undefined;
}

/** What decideBenchmark writes besides the decision: more columns and more events, in its transaction. */
export interface DecisionExtras {
  /** Columns set with the decision (they override the decision's own). */
  changes?: TransitionChanges | undefined;
  /** Events appended after the decision's, such as `claim-refused`. */
  events?: ReadonlyArray<{ type: string; detail: Record<string, unknown> }> | undefined;
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

/** Options of openFleetStore (SQLite). */
export interface FleetStoreOptions {
  /** The SQLite file, or ":memory:". Required. */
  path: string;
  /** Clock for event and row times. Default: the system clock. */
  clock?: Clock | undefined;
  /** "refuse": a missing file is an error and nothing is created. Default "create". */
  ifMissing?: "create" | "refuse" | undefined;
}

/** Events query of FleetStore.events. */
export interface EventsQuery {
  /** Only this instance's events. Default: all. */
  instanceId?: string | undefined;
  /** Only events after this sequence number (paging). Default 0. */
  afterSeq?: number | undefined;
  /** At most this many. Default 10 000. */
  limit?: number | undefined;
}

/** Options of FleetStore.plan. */
export interface PlanOptions {
  /**
   * Runs in the plan's transaction with every instance, before the insert, with no other
   * writer in between (the budget check); throwing refuses the plan and writes nothing.
   */
  guard?: ((instances: readonly InstanceRecord[]) => void) | undefined;
}

/**
 * The fleet's state, behind one asynchronous interface so it can live in SQLite (a file on the
 * manager's host) or PostgreSQL (next to HarmonyDB, shared by several `fleet serve` replicas).
 * Every write that must be atomic is one method: callers never hold a transaction across awaits.
 */
export interface FleetStore {
  /** Which database holds the state. */
  readonly kind: "sqlite" | "postgres";
  /** Where it is, for people: the SQLite path, or the connection string with its password hidden. */
  readonly location: string;
  /** The SQLite file (":memory:" for a private one); undefined for PostgreSQL. */
  readonly path: string | undefined;
  /** Highest applied migration. */
  schemaVersion(): Promise<number>;
  /** Every measured rate (benchmarks and production), for calibration and ranking. */
  readonly performance: HostPerformanceStore;
  /** Inserts a planned instance and its first event (after `options.guard` passes, in one transaction). */
  plan(input: PlanInstanceInput, options?: PlanOptions): Promise<InstanceRecord>;
  /** One instance, or undefined. */
  get(id: string): Promise<InstanceRecord | undefined>;
  /** One instance; throws FleetInstanceNotFoundError. */
  require(id: string): Promise<InstanceRecord>;
  /** The stored token hash of an instance (the agent endpoints' hot path), or undefined. */
  tokenHash(id: string): Promise<string | undefined>;
  /** The instance with that Vast label, or undefined. */
  getByLabel(label: string): Promise<InstanceRecord | undefined>;
  /** Instances, optionally only in some states, oldest first. */
  list(states?: readonly InstanceState[]): Promise<InstanceRecord[]>;
  /**
   * Moves an instance `from` (one state or any of several) `to` with a guarded
   * `UPDATE ... WHERE id = ? AND state IN (...)` and its event, in one transaction. Throws
   * FleetTransitionError, changing nothing, when the instance is elsewhere or the move is not in
   * the lifecycle table.
   */
  transition(
    id: string,
    from: InstanceState | readonly InstanceState[],
    to: InstanceState,
    options?: TransitionOptions,
  ): Promise<InstanceRecord>;
  /** As transition, but undefined instead of throwing when the guard does not match. */
  tryTransition(
    id: string,
    from: InstanceState | readonly InstanceState[],
    to: InstanceState,
    options?: TransitionOptions,
  ): Promise<InstanceRecord | undefined>;
  /** Sets columns without a state change (Vast id after a create), guarded by the state, with an event. */
  update(
    id: string,
    state: InstanceState,
    changes: TransitionChanges,
    eventType: string,
    detail?: Record<string, unknown>,
  ): Promise<InstanceRecord>;
  /**
   * Stores (or, with undefined, clears) the Curio drain of an instance, with an event when
   * given, in one transaction. Storing one needs the instance `active` (undefined is answered
   * otherwise, nothing written); clearing works in any state.
   */
  setCurioDrain(
    id: string,
    drain: CurioDrainRecord | undefined,
    event?: { type: string; detail?: Record<string, unknown> | undefined } | undefined,
  ): Promise<InstanceRecord | undefined>;
  /** Records a heartbeat time; false when the instance is not in a live state. Not an event (too many). */
  heartbeat(id: string): Promise<boolean>;
  /** Appends an event without changing the instance. */
  appendEvent(id: string, type: string, detail?: Record<string, unknown>): Promise<void>;
  /** Events, of one instance or all, in order. */
  events(query?: EventsQuery): Promise<FleetEvent[]>;
  /** The highest event sequence number, 0 when there is none (the live stream's cursor). */
  lastEventSeq(): Promise<number>;
  /**
   * Saves the benchmark result and moves benchmarking -> `to`, and appends `performance` (the
   * measurement, which outlives the instance) when given, and `extras`, in one transaction.
   */
  decideBenchmark(
    id: string,
    result: Omit<BenchmarkResultRecord, "instanceId" | "at">,
    to: "active" | "rejected" | "failed",
    reason: string,
    performance?: HostPerformanceInput,
    extras?: DecisionExtras,
  ): Promise<InstanceRecord>;
  /** The benchmark result of an instance, if any. */
  benchmarkResult(id: string): Promise<BenchmarkResultRecord | undefined>;
  /** Every benchmark result, oldest first, without the reports (the dashboard's table and chart). Default limit 1000. */
  benchmarkSummaries(limit?: number): Promise<Omit<BenchmarkResultRecord, "report">[]>;
  /** Notes a failed destroy: attempts + 1, the next try time, and whether the operator must step in. */
  noteDestroyAttempt(
    id: string,
    nextAttemptAt: number | undefined,
    manual: boolean,
    error: string,
  ): Promise<InstanceRecord>;
  /** Notes a labelled Vast instance without a live row; returns when it was first seen (epoch ms). */
  noteUnknownInstance(
    vastId: number,
    label: string,
  ): Promise<{ firstSeenAt: number; outcome: string | undefined }>;
  /** Records what was done about an unknown instance (`destroyed`, `adopted`). */
  settleUnknownInstance(vastId: number, outcome: string): Promise<void>;
  /** Saves a fleet's config (what `fleet serve` was started with). */
  saveSettings(fleet: string, config: Record<string, unknown>): Promise<void>;
  /** A fleet's saved config, or undefined. */
  loadSettings(fleet: string): Promise<Record<string, unknown> | undefined>;
  /** The operator cordons a machine: a `cordon` evidence row, excluded until lifted. */
  excludeMachine(machineId: number, reason: string): Promise<void>;
  /** Appends one row of machine evidence (a failure, death, operator action or lift). */
  recordEvidence(input: MachineEvidenceInput): Promise<MachineEvidenceRecord>;
  /** Machine evidence, oldest first; of one machine when asked. */
  machineEvidence(query?: { machineId?: number | undefined }): Promise<MachineEvidenceRecord[]>;
  /** The machine's exclusion now (the store's clock), or undefined. Default policy: fleetDefaults. */
  machineExclusion(machineId: number, policy?: ExclusionPolicy): Promise<MachineExclusion | undefined>;
  /** True when the machine is excluded now. Default policy: fleetDefaults. */
  isMachineExcluded(machineId: number, policy?: ExclusionPolicy): Promise<boolean>;
  /**
   * Lifts a machine's exclusion: a `lift` evidence row (older evidence no longer excludes, but
   * still counts in its failure rate) and a `machine-lifted` event on `machine-<id>`.
   */
  liftExclusion(machineId: number, reason: string): Promise<MachineEvidenceRecord>;
  /**
   * Appends lines to an instance's log tail and removes its older lines beyond the newest
   * `keepLines`, in one transaction. Default keepLines: logTailDefaults.storeKeepLines (500).
   */
  appendLogLines(id: string, lines: readonly InstanceLogLineInput[], keepLines?: number): Promise<void>;
  /** The instance's stored log tail, oldest first: its newest `limit` lines. Default limit: all kept. */
  logTail(id: string, limit?: number): Promise<InstanceLogLine[]>;
  /** Instances per state (every state present, 0 when none). */
  countByState(): Promise<Record<InstanceState, number>>;
  /** The fleet's writer lease on this database (one manager writes at a time); nothing is claimed until asked. */
  writerLease(options: WriterLeaseOptions): WriterLease;
  /**
   * This store with every write fenced by `lease`: each runs only while the lease is still this
   * manager's (holder and epoch), checked in the write's own transaction; else FleetLeaseLostError,
   * and nothing is written. Reads are as before; closing either closes both.
   */
  fencedBy(lease: WriterLease): FleetStore;
  /** Closes the database (every connection). */
  close(): Promise<void>;
}

/** The SQLite store: the FleetStore plus its raw handle. */
export interface SqliteFleetStore extends FleetStore {
  readonly kind: "sqlite";
  readonly path: string;
  /** The raw database, for benchmarks and tests. */
  readonly db: SqliteDatabase;
}

/** Options of connectFleetStore. */
export interface ConnectFleetStoreOptions {
  /** A SQLite path, or `postgres://USER:PASSWORD@HOST:PORT/DB`. Required. */
  location: string;
  /** The PostgreSQL schema of the fleet's tables. Default `cuzkit_fleet`. */
  schema?: string | undefined;
  /** Clock for event and row times. Default: the system clock. */
  clock?: Clock | undefined;
  /** "refuse": a missing SQLite file is an error and nothing is created. Default "create". */
  ifMissing?: "create" | "refuse" | undefined;
}

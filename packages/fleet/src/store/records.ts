import type { HardwareSpec } from "@cuzkit/core";
import type { InstanceState } from "../lifecycle.js";

/** What an instance's counted rate rests on: its checked benchmark, the model (probation), or production. */
export type RateBasis = "benchmark" | "probation" | "production";

/** What the store keeps of the rented offer: enough to size, price and explain the instance. */
export interface OfferSnapshot {
  offerId: number;
  machineId: number | undefined;
  /** The Vast host (the owner of one or more machines), when the offer says. */
  hostId?: number | undefined;
  /** The CPU model, when the offer says. */
  cpuName?: string | undefined;
  gpuName: string;
  numGpus: number;
  /** VRAM per GPU, bytes. */
  gpuRamBytes: number;
  /** Host RAM, bytes. */
  cpuRamBytes: number;
  cpuCores: number | undefined;
  /** Price, $/hour: what the rental costs (the bid when interruptible). */
  dphTotal: number;
  /** The bid sent with the create, $/hour: an interruptible rental. Undefined: on-demand. */
  bidPricePerHour?: number | undefined;
  /** The offer's on-demand price, $/hour, when it was rented interruptibly (for display). */
  onDemandDphTotal?: number | undefined;
  /** Measured download speed, Mbit/s. */
  inetDownMbps: number | undefined;
  geolocation: string | undefined;
  /** The machine as the tuner sees it (from the offer: cgroup limits are only known on the box). */
  hardware: HardwareSpec;
}

/**
 * A Curio drain the fleet holds on the instance's node, stored so that no cordon is left behind
 * unseen: a restarted manager drains again (`draining` with a destroy pending) or uncordons.
 */
export interface CurioDrainRecord {
  /**
   * `draining`: the node is cordoned and a destroy waits for its tasks; `cordoned`: the fleet
   * cordoned it and no destroy is pending any more (an uncordon failed and is still to do).
   */
  state: "draining" | "cordoned";
  /** harmony_machines.id of the node. */
  curioMachineId: number;
  /** When the drain started (the cordon), epoch ms. */
  since: number;
  /** When the drain stops waiting and the destroy goes ahead, epoch ms; undefined until computed. */
  deadlineAt: number | undefined;
  /** Whether the instance is destroyed once drained. */
  destroyPending: boolean;
}

/** One instance row. Times are epoch ms. */
export interface InstanceRecord {
  /** Our id, such as `i-3f9a2c1b`. */
  id: string;
  /** The fleet's name. */
  fleet: string;
  /** The Vast label, `cuzkit-fleet-<fleet>-<id>`. */
  label: string;
  state: InstanceState;
  offerId: number;
  machineId: number | undefined;
  /** The Vast instance (contract) id, once the create answered or was recovered. */
  vastId: number | undefined;
  /** Price, $/hour. */
  dphPerHour: number;
  offer: OfferSnapshot;
  /** Deadline of each timed state, ms after entering it. */
  deadlinesMs: Record<string, number>;
  /** sha256 of the agent token (hex); the token itself is never stored. */
  tokenHash: string;
  phaseStartedAt: number;
  /** When the current phase times out; undefined for untimed states. */
  phaseDeadlineAt: number | undefined;
  lastHeartbeatAt: number | undefined;
  /** The tuned cuzk.toml the agent reported. */
  tunedConfig: string | undefined;
  /**
   * The counted proofs/hour, once benchmarked: what the planner, the dashboard and /metrics
   * count the machine at (see `countedRate` for its basis).
   */
  proofsPerHour: number | undefined;
  /** The proofs/hour the agent's report claimed. */
  claimedProofsPerHour?: number | undefined;
  /** The benchmark's rate as the manager recomputed it from the proof records (at most the claim). */
  benchmarkProofsPerHour?: number | undefined;
  /** The model's (uncalibrated) proofs/hour for the offer's hardware. */
  modelProofsPerHour?: number | undefined;
  /** What `proofsPerHour` rests on; undefined on rows from before claims were checked (benchmark). */
  rateBasis?: RateBasis | undefined;
  /** The measured production over the last window, once a full window was seen. */
  productionProofsPerHour?: number | undefined;
  /** When the production rate was last updated, epoch ms. */
  productionAt?: number | undefined;
  /** Since when production has stayed below the keep rule (the hysteresis' start), epoch ms. */
  belowKeepSince?: number | undefined;
  /** The Curio drain in progress on its node (stored, resumed after a restart); undefined when none. */
  curioDrain?: CurioDrainRecord | undefined;
  /** Why it is where it is (failure class, verdict reason). */
  reason: string | undefined;
  destroyFirstAttemptAt: number | undefined;
  destroyAttempts: number;
  destroyNextAttemptAt: number | undefined;
  /** True once destroy retries gave up: the operator must destroy it by hand. */
  destroyManual: boolean;
  createdAt: number;
  updatedAt: number;
}

/** One event of the append-only history. */
export interface FleetEvent {
  seq: number;
  instanceId: string;
  at: number;
  /** `transition`, `heartbeat-lost`, `report`, `destroy-failed`, `unknown-instance`, ... */
  type: string;
  fromState: InstanceState | undefined;
  toState: InstanceState | undefined;
  detail: Record<string, unknown> | undefined;
}

/** One stored line of an instance's log tail (what its agent shipped, redacted). */
export interface InstanceLogLine {
  /** Order of arrival, across instances. */
  seq: number;
  instanceId: string;
  /** `daemon` (the daemon's output) or `agent` (the agent's own lines). */
  stream: string;
  /** When the agent read the line, epoch ms (the machine's clock). */
  at: number;
  /** When the manager stored it, epoch ms (the manager's clock). */
  receivedAt: number;
  text: string;
}

/** A line to store: what the agent sent, after the manager's checks and redaction. */
export interface InstanceLogLineInput {
  stream: string;
  at: number;
  text: string;
}

/** The benchmark result an agent reported and the decision taken on it. */
export interface BenchmarkResultRecord {
  instanceId: string;
  at: number;
  verdict: string;
  proofsPerHour: number;
  minProofsPerHour: number;
  machineId: number | undefined;
  gpuName: string | undefined;
  numGpus: number | undefined;
  /** The agent's whole report, per-proof records included. */
  report: Record<string, unknown>;
}

/** SQL row shape of `instances`. */
export interface InstanceRow {
  id: string;
  fleet: string;
  label: string;
  state: string;
  offer_id: number;
  machine_id: number | null;
  vast_id: number | null;
  dph: number;
  offer_json: string;
  deadlines_json: string;
  token_hash: string;
  phase_started_at: number;
  phase_deadline_at: number | null;
  last_heartbeat_at: number | null;
  tuned_config: string | null;
  proofs_per_hour: number | null;
  claimed_proofs_per_hour?: number | null;
  benchmark_proofs_per_hour?: number | null;
  model_proofs_per_hour?: number | null;
  rate_basis?: string | null;
  production_proofs_per_hour?: number | null;
  production_at?: number | null;
  below_keep_since?: number | null;
  curio_drain?: string | null;
  curio_machine_id?: number | null;
  curio_drain_since?: number | null;
  curio_drain_deadline_at?: number | null;
  curio_drain_destroy?: number | null;
  reason: string | null;
  destroy_first_attempt_at: number | null;
  destroy_attempts: number;
  destroy_next_attempt_at: number | null;
  destroy_manual: number;
  created_at: number;
  updated_at: number;
}

/** A column's SQL NULL as undefined, the records' "absent" (the row mappers' one conversion). */
export const orUndefined = <T>(value: T | null): T | undefined => (value === null ? undefined : value);

/** Converts a row to a record. */
export function toInstanceRecord(row: InstanceRow): InstanceRecord {
  return {
    id: row.id,
    fleet: row.fleet,
    label: row.label,
    state: row.state as InstanceState,
    offerId: row.offer_id,
    machineId: orUndefined(row.machine_id),
    vastId: orUndefined(row.vast_id),
    dphPerHour: row.dph,
    offer: JSON.parse(row.offer_json) as OfferSnapshot,
    deadlinesMs: JSON.parse(row.deadlines_json) as Record<string, number>,
    tokenHash: row.token_hash,
    phaseStartedAt: row.phase_started_at,
    phaseDeadlineAt: orUndefined(row.phase_deadline_at),
    lastHeartbeatAt: orUndefined(row.last_heartbeat_at),
    tunedConfig: orUndefined(row.tuned_config),
    proofsPerHour: orUndefined(row.proofs_per_hour),
    claimedProofsPerHour: orUndefined(row.claimed_proofs_per_hour ?? null),
    benchmarkProofsPerHour: orUndefined(row.benchmark_proofs_per_hour ?? null),
    modelProofsPerHour: orUndefined(row.model_proofs_per_hour ?? null),
    rateBasis: orUndefined((row.rate_basis ?? null) as RateBasis | null),
    productionProofsPerHour: orUndefined(row.production_proofs_per_hour ?? null),
    productionAt: orUndefined(row.production_at ?? null),
    belowKeepSince: orUndefined(row.below_keep_since ?? null),
    curioDrain: curioDrainOf(row),
    reason: orUndefined(row.reason),
    destroyFirstAttemptAt: orUndefined(row.destroy_first_attempt_at),
    destroyAttempts: row.destroy_attempts,
    destroyNextAttemptAt: orUndefined(row.destroy_next_attempt_at),
    destroyManual: row.destroy_manual !== 0,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** The drain columns of a row as a record; undefined when no drain is stored. */
function curioDrainOf(row: InstanceRow): CurioDrainRecord | undefined {
  const state = row.curio_drain ?? null;
  if ((state !== "draining" && state !== "cordoned") || (row.curio_machine_id ?? null) === null)
    return undefined;
  return {
    state,
    curioMachineId: row.curio_machine_id as number,
    since: row.curio_drain_since ?? row.updated_at,
    deadlineAt: orUndefined(row.curio_drain_deadline_at ?? null),
    destroyPending: (row.curio_drain_destroy ?? 0) !== 0,
  };
}

/** The drain columns' values for a record (all NULL for none), in curioDrainColumns' order. */
export function curioDrainValues(drain: CurioDrainRecord | undefined): (string | number | null)[] {
  if (drain === undefined) return [null, null, null, null, null];
  return [
    drain.state,
    drain.curioMachineId,
    drain.since,
    drain.deadlineAt ?? null,
    drain.destroyPending ? 1 : 0,
  ];
}

/** The `instances` columns a Curio drain is stored in. */
export const curioDrainColumns = [
  "curio_drain",
  "curio_machine_id",
  "curio_drain_since",
  "curio_drain_deadline_at",
  "curio_drain_destroy",
] as const;

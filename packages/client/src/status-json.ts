import { linkSignals } from "@cuzkit/core";
import {
  AbortedError,
  DaemonInternalError,
  DaemonUnavailableError,
  DeadlineExceededError,
} from "./errors.js";
import { unreachableCode } from "./map-error.js";
import type {
  DaemonStatusJson,
  FetchStatusJsonOptions,
  StatusAllocation,
  StatusBuffers,
  StatusGpuWorker,
  StatusPartition,
  StatusPipeline,
  UnknownFields,
} from "./status-json-types.js";

// The daemon's optional HTTP `GET /status` (daemon.status_listen; docs/daemon-facts.md section 2):
// the only live view of the memory budget, partition pipelines and GPU workers. Read with
// fetch and validated field by field, because it is hand-rolled JSON from a version we do
// not control: a known field of the wrong type fails loudly with the field's path, a missing
// section is undefined, and a field this client does not know is kept (camelCased, typed
// unknown) rather than failing the snapshot: newer daemons add fields.

export type {
  DaemonStatusJson,
  FetchStatusJsonOptions,
  PartitionState,
  StatusAllocation,
  StatusBuffers,
  StatusGpuWorker,
  StatusPartition,
  StatusPipeline,
  UnknownFields,
} from "./status-json-types.js";

type Json = unknown;

class ShapeError extends Error {}

function at(path: string, value: Json, expected: string): never {
  throw new ShapeError(`${path}: expected ${expected}, got ${value === null ? "null" : typeof value}`);
}

function obj(path: string, value: Json): Record<string, Json> {
  if (value === null || typeof value !== "object" || Array.isArray(value))
    return at(path, value, "an object");
  return value as Record<string, Json>;
}
function number(path: string, value: Json): number {
  if (typeof value !== "number" || !Number.isFinite(value)) return at(path, value, "a number");
  return value;
}
function optNumber(path: string, value: Json): number | undefined {
  return value === null || value === undefined ? undefined : number(path, value);
}
function string(path: string, value: Json): string {
  if (typeof value !== "string") return at(path, value, "a string");
  return value;
}
function optString(path: string, value: Json): string | undefined {
  return value === null || value === undefined ? undefined : string(path, value);
}
function bool(path: string, value: Json): boolean {
  if (typeof value !== "boolean") return at(path, value, "a boolean");
  return value;
}
function list<T>(path: string, value: Json, item: (path: string, value: Json) => T): T[] {
  if (!Array.isArray(value)) return at(path, value, "an array");
  return value.map((v, i) => item(`${path}[${i}]`, v));
}
function section<T>(
  root: Record<string, Json>,
  key: string,
  read: (path: string, value: Json) => T,
): T | undefined {
  return root[key] === undefined || root[key] === null ? undefined : read(key, root[key]);
}
function numberMap(path: string, value: Json): Record<string, number> {
  const o = obj(path, value);
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, number(`${path}.${k}`, v)]));
}
/** snake_case (or kebab-case) to camelCase: `synth_in_flight` -> `synthInFlight`. */
export function camelCaseKey(key: string): string {
  return key.replace(/[_-]+([a-z0-9])/gi, (_, c: string) => c.toUpperCase());
}

/** A value received for an unknown field, with every nested object key camelCased. */
function camelCaseDeep(value: Json): unknown {
  if (Array.isArray(value)) return value.map(camelCaseDeep);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value as Record<string, Json>).map(([k, v]) => [camelCaseKey(k), camelCaseDeep(v)]),
    );
  }
  return value;
}

/** The fields of `o` not in `known`, camelCased (they never fail the snapshot). */
function unknownFields(o: Record<string, Json>, known: readonly string[]): UnknownFields {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(o)) {
    if (!known.includes(key)) out[camelCaseKey(key)] = camelCaseDeep(value);
  }
  return out;
}

const bufferKeys = [
  "synth_in_flight",
  "provers_in_flight",
  "aux_in_flight",
  "shells_in_flight",
  "pending_handles",
] as const;

function buffers(path: string, value: Json): StatusBuffers {
  const o = obj(path, value);
  return {
    ...unknownFields(o, bufferKeys),
    synthInFlight: optNumber(`${path}.synth_in_flight`, o.synth_in_flight),
    proversInFlight: optNumber(`${path}.provers_in_flight`, o.provers_in_flight),
    auxInFlight: optNumber(`${path}.aux_in_flight`, o.aux_in_flight),
    shellsInFlight: optNumber(`${path}.shells_in_flight`, o.shells_in_flight),
    pendingHandles: optNumber(`${path}.pending_handles`, o.pending_handles),
  };
}

function allocation(path: string, value: Json): StatusAllocation {
  const o = obj(path, value);
  return {
    ...unknownFields(o, ["circuit_id", "bytes", "last_used_secs_ago", "evictable"]),
    circuitId: string(`${path}.circuit_id`, o.circuit_id),
    bytes: number(`${path}.bytes`, o.bytes),
    lastUsedSecsAgo: number(`${path}.last_used_secs_ago`, o.last_used_secs_ago),
    evictable: bool(`${path}.evictable`, o.evictable),
  };
}

function memory(p: string, v: Json): NonNullable<DaemonStatusJson["memory"]> {
  const o = obj(p, v);
  return {
    ...unknownFields(o, ["total_bytes", "used_bytes", "available_bytes"]),
    totalBytes: number(`${p}.total_bytes`, o.total_bytes),
    usedBytes: number(`${p}.used_bytes`, o.used_bytes),
    availableBytes: number(`${p}.available_bytes`, o.available_bytes),
  };
}

function synthesis(p: string, v: Json): NonNullable<DaemonStatusJson["synthesis"]> {
  const o = obj(p, v);
  return {
    ...unknownFields(o, ["max_concurrent", "active"]),
    maxConcurrent: number(`${p}.max_concurrent`, o.max_concurrent),
    active: number(`${p}.active`, o.active),
  };
}

function partition(pp: string, pv: Json): StatusPartition {
  const po = obj(pp, pv);
  return {
    ...unknownFields(po, ["index", "state", "synth_ms", "gpu_ms"]),
    index: number(`${pp}.index`, po.index),
    state: string(`${pp}.state`, po.state),
    synthMs: optNumber(`${pp}.synth_ms`, po.synth_ms),
    gpuMs: optNumber(`${pp}.gpu_ms`, po.gpu_ms),
  };
}

function pipeline(ip: string, iv: Json): StatusPipeline {
  const o = obj(ip, iv);
  return {
    ...unknownFields(o, [
      "job_id",
      "proof_kind",
      "started_secs_ago",
      "total_partitions",
      "partitions_done",
      "partitions",
    ]),
    jobId: string(`${ip}.job_id`, o.job_id),
    proofKind: string(`${ip}.proof_kind`, o.proof_kind),
    startedSecsAgo: number(`${ip}.started_secs_ago`, o.started_secs_ago),
    totalPartitions: number(`${ip}.total_partitions`, o.total_partitions),
    partitionsDone: number(`${ip}.partitions_done`, o.partitions_done),
    partitions: list(`${ip}.partitions`, o.partitions ?? [], partition),
  };
}

function gpuWorker(ip: string, iv: Json): StatusGpuWorker {
  const o = obj(ip, iv);
  return {
    ...unknownFields(o, [
      "worker_id",
      "gpu_ordinal",
      "state",
      "current_job",
      "current_partition",
      "busy_secs",
    ]),
    workerId: number(`${ip}.worker_id`, o.worker_id),
    gpuOrdinal: number(`${ip}.gpu_ordinal`, o.gpu_ordinal),
    state: string(`${ip}.state`, o.state),
    currentJob: optString(`${ip}.current_job`, o.current_job),
    currentPartition: optNumber(`${ip}.current_partition`, o.current_partition),
    busySecs: optNumber(`${ip}.busy_secs`, o.busy_secs),
  };
}

function allocations(p: string, v: Json): NonNullable<DaemonStatusJson["allocations"]> {
  const o = obj(p, v);
  return {
    ...unknownFields(o, ["srs", "pce"]),
    srs: list(`${p}.srs`, o.srs ?? [], allocation),
    pce: list(`${p}.pce`, o.pce ?? [], allocation),
  };
}

function counters(p: string, v: Json): NonNullable<DaemonStatusJson["counters"]> {
  const o = obj(p, v);
  return {
    ...unknownFields(o, [
      "total_completed",
      "total_failed",
      "completed_by_kind",
      "failed_by_kind",
      "queue_depth",
    ]),
    totalCompleted: number(`${p}.total_completed`, o.total_completed),
    totalFailed: number(`${p}.total_failed`, o.total_failed),
    completedByKind: numberMap(`${p}.completed_by_kind`, o.completed_by_kind ?? {}),
    failedByKind: numberMap(`${p}.failed_by_kind`, o.failed_by_kind ?? {}),
    queueDepth: number(`${p}.queue_depth`, o.queue_depth ?? 0),
  };
}

/** Validates parsed /status JSON into typed fields; throws an Error naming the first bad field. */
export function parseStatusJson(raw: Json): DaemonStatusJson {
  const root = obj("status", raw);
  return {
    ...unknownFields(root, [
      "uptime_secs",
      "memory",
      "synthesis",
      "pipelines",
      "gpu_workers",
      "allocations",
      "counters",
      "buffers",
    ]),
    uptimeSecs: number("uptime_secs", root.uptime_secs),
    memory: section(root, "memory", memory),
    synthesis: section(root, "synthesis", synthesis),
    pipelines: section(root, "pipelines", (p, v) => list(p, v, pipeline)),
    gpuWorkers: section(root, "gpu_workers", (p, v) => list(p, v, gpuWorker)),
    allocations: section(root, "allocations", allocations),
    counters: section(root, "counters", counters),
    buffers: section(root, "buffers", buffers),
    raw,
  };
}

/** Turns `127.0.0.1:9821`, `http://host:9821` or `http://host:9821/status` into the /status URL. */
export function statusJsonUrl(statusUrl: string): URL {
  const text = statusUrl.trim();
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`);
  } catch (cause) {
    throw new DaemonUnavailableError(`invalid status URL ${JSON.stringify(statusUrl)}`, {
      cause,
      hint: "give the daemon's status_listen address, e.g. http://127.0.0.1:9821",
    });
  }
  if (url.pathname === "" || url.pathname === "/") url.pathname = "/status";
  return url;
}

/**
 * Reads the daemon's HTTP /status JSON (enabled with `daemon.status_listen`). Throws
 * DaemonUnavailableError (not listening), DeadlineExceededError, AbortedError, or
 * DaemonInternalError (non-200 answer, invalid JSON, or a field of the wrong type).
 */
export async function fetchStatusJson(
  statusUrl: string,
  options: FetchStatusJsonOptions = {},
): Promise<DaemonStatusJson> {
  const url = statusJsonUrl(statusUrl);
  const timeoutMs = options.timeoutMs ?? 5_000;
  const timeout = AbortSignal.timeout(timeoutMs);
  const linked = linkSignals(options.signal, timeout);
  const context = { rpc: "GET /status", address: url.href };
  let text: string;
  let status: number;
  try {
    const response = await fetch(url, { signal: linked.signal, headers: { accept: "application/json" } });
    status = response.status;
    text = await response.text();
  } catch (cause) {
    if (options.signal?.aborted)
      throw new AbortedError("aborted by the caller (GET /status)", { ...context, cause });
    if (timeout.aborted) {
      throw new DeadlineExceededError(`GET ${url.href} did not answer within ${timeoutMs} ms`, {
        ...context,
        cause,
        timeoutMs,
      });
    }
    const code = unreachableCode(cause);
    throw new DaemonUnavailableError(
      `cannot reach the daemon's status endpoint ${url.href}${code ? ` (${code})` : ""}`,
      {
        ...context,
        cause,
        hint: "check daemon.status_listen in cuzk.toml (it is off by default) and that the daemon is running",
      },
    );
  } finally {
    linked.dispose();
  }
  if (status !== 200) {
    throw new DaemonInternalError(`GET ${url.href} answered HTTP ${status}: ${text.slice(0, 200)}`, {
      ...context,
    });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (cause) {
    throw new DaemonInternalError(`GET ${url.href} did not return JSON: ${text.slice(0, 120)}`, {
      ...context,
      cause,
    });
  }
  try {
    return parseStatusJson(json);
  } catch (cause) {
    if (!(cause instanceof ShapeError)) throw cause;
    throw new DaemonInternalError(`the daemon's /status JSON has an unexpected shape: ${cause.message}`, {
      ...context,
      cause,
      hint: "the daemon version may differ from the one this client knows; compare with cuzk-daemon status.rs",
    });
  }
}

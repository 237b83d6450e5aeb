import { parse as parseToml } from "smol-toml";
import { formatBytes, GiB, parseCuzkSize } from "./bytes.js";
import { daemonListenProblem } from "./daemon-listen.js";
import { InvalidInputError } from "./errors.js";

// The daemon's configuration as the model sees it, in its two dialects, and a reader for
// cuzk.toml that reports what the daemon would ignore or misread.
// Source: docs/daemon-facts.md section 3.

/**
 * `partition-workers`: the older daemon the incidents ran, where `synthesis.partition_workers`
 * caps concurrent partition syntheses. `budget`: the current daemon, where a memory budget
 * (14 GiB reserved per partition) and `pipeline.max_parallel_synthesis` decide.
 */
export type DaemonDialect = "partition-workers" | "budget";
/** Both dialects. */
export const daemonDialects: readonly DaemonDialect[] = ["partition-workers", "budget"];

/** The settings that change memory and speed, normalised (0 means "all CPUs" where the daemon says so). */
export interface DaemonConfig {
  /** Which daemon reads this config. */
  dialect: DaemonDialect;
  /** synthesis.partition_workers (partition-workers dialect): concurrent partition syntheses. */
  partitionWorkers: number;
  /** pipeline.max_parallel_synthesis (budget dialect); the daemon treats 0 as 18. */
  maxParallelSynthesis: number;
  /** memory.total_budget in bytes, or "auto" (host MemTotal minus safety_margin). */
  totalBudgetBytes: number | "auto";
  /** memory.safety_margin in bytes; only used with "auto". */
  safetyMarginBytes: number;
  /** gpus.gpu_workers_per_device. */
  gpuWorkersPerDevice: number;
  /** gpus.gpu_threads; 0 = all CPUs. */
  gpuThreads: number;
  /** synthesis.threads; 0 = all CPUs. */
  synthesisThreads: number;
  /** pipeline.synthesis_concurrency. */
  synthesisConcurrency: number;
  /** scheduler.max_batch_size; 1 = no cross-sector batching. */
  maxBatchSize: number;
  /** pipeline.enabled; false = monolithic mode, one worker per GPU. */
  pipelineEnabled: boolean;
}

/** The daemon's own defaults for each dialect. */
export function defaultDaemonConfig(dialect: DaemonDialect): DaemonConfig {
  return {
    dialect,
    // The older daemon's example config ran 10 workers (one per PoRep partition).
    partitionWorkers: 10,
    maxParallelSynthesis: 18,
    totalBudgetBytes: "auto",
    safetyMarginBytes: 5 * GiB,
    gpuWorkersPerDevice: 2,
    gpuThreads: 0,
    synthesisThreads: 0,
    synthesisConcurrency: 1,
    maxBatchSize: 1,
    pipelineEnabled: true,
  };
}

/** The hand-set config of the incidents (docs/incidents.md, the 256gb row): pw=16, 2 GPU workers, 32 GPU threads. */
export function incidentDaemonConfig(): DaemonConfig {
  return {
    ...defaultDaemonConfig("partition-workers"),
    partitionWorkers: 16,
    gpuWorkersPerDevice: 2,
    gpuThreads: 32,
  };
}

type KeyKind = "size" | "duration" | "int" | "bool" | "string" | "string[]" | "int[]";
interface KeyInfo {
  kind: KeyKind;
  /** Which dialects read the key. */
  readBy: readonly DaemonDialect[];
  /** Set when the daemon warns about or ignores the key. */
  note?: string | undefined;
}
const both = daemonDialects;
const budgetOnly: readonly DaemonDialect[] = ["budget"];
const pwOnly: readonly DaemonDialect[] = ["partition-workers"];
const none: readonly DaemonDialect[] = [];

/** Every key of cuzk.toml the model knows, by `section.key`, with the dialects that read it. */
export const cuzkConfigKeys: Record<string, KeyInfo> = {
  "daemon.listen": { kind: "string", readBy: both },
  "daemon.status_listen": { kind: "string", readBy: both },
  "srs.param_cache": { kind: "string", readBy: both },
  "srs.preload": {
    kind: "string[]",
    readBy: pwOnly,
    note: "deprecated: the current daemon warns and loads parameters on demand",
  },
  "memory.total_budget": { kind: "size", readBy: budgetOnly },
  "memory.safety_margin": { kind: "size", readBy: budgetOnly },
  "memory.eviction_min_idle": { kind: "duration", readBy: budgetOnly },
  "memory.pinned_budget": { kind: "size", readBy: none, note: "deprecated and ignored" },
  "memory.working_memory_budget": { kind: "size", readBy: none, note: "deprecated and ignored" },
  "gpus.devices": { kind: "int[]", readBy: both },
  "gpus.gpu_threads": { kind: "int", readBy: both },
  "gpus.gpu_workers_per_device": { kind: "int", readBy: both },
  "scheduler.max_batch_size": { kind: "int", readBy: both },
  "scheduler.max_batch_wait_ms": { kind: "int", readBy: both },
  "scheduler.sort_by_type": { kind: "bool", readBy: none, note: "never read by the daemon" },
  "synthesis.threads": { kind: "int", readBy: both },
  "synthesis.partition_workers": {
    kind: "int",
    readBy: pwOnly,
    note: "the current daemon warns and ignores it: set pipeline.max_parallel_synthesis and memory.total_budget",
  },
  "pipeline.enabled": { kind: "bool", readBy: both },
  "pipeline.synthesis_lookahead": { kind: "int", readBy: none, note: "effectively unused (only logged)" },
  "pipeline.synthesis_concurrency": { kind: "int", readBy: both },
  "pipeline.max_parallel_synthesis": { kind: "int", readBy: budgetOnly },
  "pipeline.slot_size": { kind: "int", readBy: none, note: "only reachable in dead code" },
  "pipeline.max_gpu_queue_depth": { kind: "int", readBy: budgetOnly },
  "logging.level": { kind: "string", readBy: both },
  "logging.format": { kind: "string", readBy: none, note: "unused: no JSON logging is wired" },
};

/** One thing the daemon would do differently from what the file seems to say. */
export interface ConfigFinding {
  /** `unknown` keys are silently ignored; `ignored` keys are known but not read by this dialect;
   * `misread` values are replaced by a fallback; `invalid` values stop the daemon at start. */
  kind: "unknown" | "ignored" | "misread" | "invalid";
  /** The key, as `section.key`. */
  key: string;
  /** What happens and what to change. */
  message: string;
}

/** The result of reading a cuzk.toml. */
export interface ReadCuzkConfigResult {
  /** The settings as the daemon would apply them. */
  config: DaemonConfig;
  /** The dialect the file was read as: the one given, else `looksWrittenFor`. */
  dialect: DaemonDialect;
  /** The dialect the file's keys look written for (partition_workers and no budget keys: the older daemon). */
  looksWrittenFor: DaemonDialect;
  /** Keys and values the daemon ignores or misreads. */
  findings: ConfigFinding[];
  /** The parsed file, section by section. */
  raw: Record<string, unknown>;
}

function flatten(table: Record<string, unknown>): Map<string, unknown> {
  const flat = new Map<string, unknown>();
  for (const [section, body] of Object.entries(table)) {
    if (body !== null && typeof body === "object" && !Array.isArray(body) && !(body instanceof Date)) {
      for (const [key, value] of Object.entries(body as Record<string, unknown>))
        flat.set(`${section}.${key}`, value);
    } else {
      flat.set(section, body);
    }
  }
  return flat;
}

// Types as serde reads them: sizes and durations are Strings, counts u32.
const u32Max = 2 ** 32 - 1;
const typeOk: Record<KeyKind, (v: unknown) => boolean> = {
  size: (v) => typeof v === "string",
  duration: (v) => typeof v === "string",
  int: (v) => typeof v === "number" && Number.isInteger(v) && v >= 0 && v <= u32Max,
  bool: (v) => typeof v === "boolean",
  string: (v) => typeof v === "string",
  "string[]": (v) => Array.isArray(v) && v.every((x) => typeof x === "string"),
  "int[]": (v) => Array.isArray(v) && v.every((x) => typeof x === "number" && Number.isInteger(x)),
};

/**
 * Reads cuzk.toml text as the daemon of `dialect` would. Without `dialect`, the one the
 * file's keys look written for (`looksWrittenFor`: partition_workers and no budget keys is
 * the older daemon); a check of what a given daemon will run must pass its dialect, since
 * the current daemon ignores partition_workers whatever the file says (the tuner's
 * checkConfig does). Throws InvalidInputError only when the TOML itself cannot be parsed;
 * everything else becomes a finding.
 */
export function readCuzkConfig(text: string, dialect?: DaemonDialect): ReadCuzkConfigResult {
  let raw: Record<string, unknown>;
  try {
    raw = parseToml(text) as Record<string, unknown>;
  } catch (error) {
    const detail = error instanceof Error ? error.message.split("\n")[0] : String(error);
    throw new InvalidInputError(`the config is not valid TOML: ${detail}`, {
      hint: "fix the TOML syntax (cuzk would refuse to start)",
      cause: error,
    });
  }
  const flat = flatten(raw);
  const looksWrittenFor: DaemonDialect =
    flat.has("synthesis.partition_workers") &&
    !flat.has("pipeline.max_parallel_synthesis") &&
    !flat.has("memory.total_budget")
      ? "partition-workers"
      : "budget";
  const inferred = dialect ?? looksWrittenFor;
  const config = defaultDaemonConfig(inferred);
  const findings: ConfigFinding[] = [];

  for (const [key, value] of flat) {
    const info = cuzkConfigKeys[key];
    if (!info) {
      findings.push({
        kind: "unknown",
        key,
        message: `unknown key: the daemon silently ignores it (check the spelling and section)`,
      });
      continue;
    }
    if (!typeOk[info.kind](value)) {
      findings.push({
        kind: "invalid",
        key,
        message: `expected ${info.kind === "size" || info.kind === "duration" ? `a ${info.kind} string such as ${info.kind === "size" ? '"240GiB"' : '"5m"'}` : info.kind}, found ${JSON.stringify(value)}: the daemon refuses to start`,
      });
      continue;
    }
    if (!info.readBy.includes(inferred)) {
      findings.push({
        kind: "ignored",
        key,
        message: info.note ?? `not read by the ${inferred} daemon`,
      });
      continue;
    }
    applyKey(config, key, value, findings);
  }
  return { config, dialect: inferred, looksWrittenFor, findings, raw };
}

/** What cuzk's parse_duration (config.rs) makes of a duration: `Nm`, `Ns` or seconds, with silent fallbacks. */
export function parseCuzkDurationSec(text: string): { seconds: number; readAsWritten: boolean } {
  const trimmed = text.trim();
  const number = (s: string) => (/^\+?\d+$/.test(s.trim()) ? Number(s.trim().replace("+", "")) : undefined);
  if (trimmed.endsWith("m")) {
    const n = number(trimmed.slice(0, -1));
    return { seconds: (n ?? 5) * 60, readAsWritten: n !== undefined };
  }
  if (trimmed.endsWith("s")) {
    const n = number(trimmed.slice(0, -1));
    return { seconds: n ?? 300, readAsWritten: n !== undefined };
  }
  const n = number(trimmed);
  return { seconds: n ?? 300, readAsWritten: n !== undefined };
}

function applyKey(config: DaemonConfig, key: string, value: unknown, findings: ConfigFinding[]): void {
  const size = (): number => {
    const parsed = parseCuzkSize(value as string);
    if (!parsed.readAsWritten) {
      findings.push({
        kind: "misread",
        key,
        message: `"${value as string}" is not a size the daemon parses (an integer with GiB, MiB, GB, MB or nothing for bytes): it silently becomes ${parsed.bytes === 0 ? "0 bytes" : parsed.bytes === 50e9 ? "50 GB" : formatBytes(parsed.bytes, 0)}`,
      });
    }
    return parsed.bytes;
  };
  if (key === "daemon.listen") {
    const problem = daemonListenProblem(value as string);
    if (problem !== undefined) {
      findings.push({ kind: "invalid", key, message: `${problem}: the daemon refuses to start` });
    }
    return;
  }
  switch (key) {
    case "memory.total_budget":
      config.totalBudgetBytes = value === "auto" ? "auto" : size();
      break;
    case "memory.safety_margin":
      config.safetyMarginBytes = size();
      break;
    case "memory.eviction_min_idle": {
      const duration = parseCuzkDurationSec(value as string);
      if (!duration.readAsWritten) {
        findings.push({
          kind: "misread",
          key,
          message: `"${value as string}" is not a duration the daemon parses (Nm, Ns or seconds): it becomes ${duration.seconds} s`,
        });
      }
      break;
    }
    case "pipeline.enabled":
      config.pipelineEnabled = value as boolean;
      break;
    default: {
      const numeric = numericKeys[key];
      if (numeric !== undefined) config[numeric.field] = numeric.read(value as number);
    }
  }
}

/** The fields of DaemonConfig that hold a plain number. */
type NumericField = {
  [K in keyof DaemonConfig]-?: DaemonConfig[K] extends number ? K : never;
}[keyof DaemonConfig];

const asWritten = (n: number) => n;
const atLeastOne = (n: number) => Math.max(1, n);

/** Whole-number keys: the field each sets and how the daemon reads the value (config.rs). */
const numericKeys: Readonly<Record<string, { field: NumericField; read: (n: number) => number }>> = {
  "gpus.gpu_threads": { field: "gpuThreads", read: asWritten },
  "gpus.gpu_workers_per_device": { field: "gpuWorkersPerDevice", read: asWritten },
  "scheduler.max_batch_size": { field: "maxBatchSize", read: atLeastOne },
  "synthesis.threads": { field: "synthesisThreads", read: asWritten },
  "synthesis.partition_workers": { field: "partitionWorkers", read: asWritten },
  "pipeline.synthesis_concurrency": { field: "synthesisConcurrency", read: atLeastOne },
  // 0 means "as many as the daemon's default", 18.
  "pipeline.max_parallel_synthesis": { field: "maxParallelSynthesis", read: (n) => (n === 0 ? 18 : n) },
};

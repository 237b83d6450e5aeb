import type { CuzkClientOptions, SubmitProofInput } from "@cuzkit/client";
import {
  type Clock,
  type DaemonDialect,
  daemonMaxMessageBytes,
  type HardwareSpec,
  InvalidInputError,
  type Logger,
  monotonicClock,
  type ProofKind,
  proofKinds,
  realSleep,
  type Sleep,
  silentLogger,
} from "@cuzkit/core";
import { recommend } from "@cuzkit/tuner";
import { type EarlyVerdictOptions, resolveEarlyVerdictOptions } from "./early-verdict.js";
import type { PhaseDeadlineOptions, PhaseModelInput } from "./phase-deadlines.js";
import type { BenchmarkEvent, ProgressSnapshot } from "./progress.js";
import type { DaemonSupervisor } from "./supervisor.js";
import type { WatchdogOptions } from "./watchdog.js";

/** Defaults of runBenchmark's options (the CLI states them in its help). */
export const benchDefaults = {
  /** How often a heartbeat event is emitted, ms. */
  heartbeatMs: 30_000,
  /** Resubmissions of a proof the daemon lost (restart, OOM). */
  resubmit: 1,
  /** Consecutive failed proofs that stop the batch. */
  maxConsecutiveFailures: 3,
  /** How long to wait for the daemon to answer, ms (10 min: a cold start loads parameters). */
  readyTimeoutMs: 600_000,
  /** With supervision and onCrash "restart": restarts allowed. */
  maxRestarts: 2,
  /** How long the warmup waits for the daemon's PCE file, ms. */
  pceWaitMs: 300_000,
} as const;

/** Optional daemon supervision: the harness starts, restarts and watches the daemon itself. */
export interface SupervisionOptions {
  /** The supervisor (see createDaemonSupervisor) that owns the daemon process. */
  supervisor: DaemonSupervisor;
  /** cuzk.toml for the timed batch. */
  configToml: string;
  /** cuzk.toml for the warmup (fewer partitions while there is no PCE cache). Default: configToml, no restart. */
  warmupConfigToml?: string | undefined;
  /** When the daemon dies: `restart` it and continue (up to maxRestarts), or `stop` with a verdict. Default "stop". */
  onCrash?: "restart" | "stop" | undefined;
  /** Restarts allowed with onCrash "restart". Default 2. */
  maxRestarts?: number | undefined;
  /** Where the config file given by the user lives, for the report. Default: none (tuned here). */
  configPath?: string | undefined;
  /**
   * After the warmup proof and before the restart, wait until a PCE file (`pce-*.bin`) is in
   * `dir` (the daemon's srs.param_cache), as the tuner's plan says; the wait's deadline is the
   * model's ETA x margin, else `timeoutMs`. Without it the restart follows the warmup at once.
   */
  pceWait?: { dir: string; timeoutMs?: number | undefined } | undefined;
}

/** Options of runBenchmark. */
export interface BenchmarkOptions {
  /** Daemon address (`127.0.0.1:9820`, `unix:///run/curio/cuzk.sock`). */
  address: string;
  /** The proof request every proof sends (a fresh request id is set per attempt). Build it with @cuzkit/client's request builders. */
  request: SubmitProofInput;
  /** Proof kind of `request`. Default: read from the request. */
  kind?: ProofKind | undefined;
  /** Timed proofs. Default 12. */
  count?: number | undefined;
  /** Proofs in flight at once, or "auto": the tuner's value for `hardware`. Default 1. */
  concurrency?: number | "auto" | undefined;
  /** The daemon's machine; needed by concurrency "auto". */
  hardware?: HardwareSpec | undefined;
  /** The daemon dialect concurrency "auto" tunes for. Default "budget" (the current daemon). */
  dialect?: DaemonDialect | undefined;
  /** Warmup: "auto" (one untimed proof with the warmup deadline), "none", or a number of proofs. Default "auto". */
  warmup?: "auto" | "none" | number | undefined;
  /** Deadline of one timed proof in ms. Default: the client's (30 min). */
  proofTimeoutMs?: number | undefined;
  /** Deadline of one warmup proof in ms. Default: the client's warmup deadline (60 min). */
  warmupTimeoutMs?: number | undefined;
  /** Verdict threshold in proofs/hour. Default: none (any completed proof is "met"). */
  minProofsPerHour?: number | undefined;
  /** Resubmissions allowed per proof when the daemon loses it (restart, OOM). Default 1: the harness owns the input. */
  resubmit?: number | undefined;
  /** Stop after this many timed proofs in a row fail (any cause). Default 3. */
  maxConsecutiveFailures?: number | undefined;
  /** The benchmark's own freeze/death detector (GetStatus probes), or false to turn it off. Default: on, 10 s probes, 30 s of silence. */
  watchdog?: WatchdogOptions | false | undefined;
  /** Stop the timed batch once a sequential test is sure which side of minProofsPerHour it is on. Needs minProofsPerHour. Default off. */
  earlyVerdict?: boolean | EarlyVerdictOptions | undefined;
  /** The model's view of the run, for phase ETAs and deadlines. Default: none (fixed fallbacks). */
  model?: Omit<PhaseModelInput, "kind" | "count" | "concurrency" | "warmupProofs"> | undefined;
  /** Phase deadlines: ETA x margin (default 3), or per-phase overrides in ms. */
  phaseDeadlines?: PhaseDeadlineOptions | undefined;
  /** Emit a heartbeat event this often, in ms. Default 30000. */
  heartbeatMs?: number | undefined;
  /** Keep this JSON file (BenchStatusFile) up to date, rewritten atomically. Default: none. */
  statusFile?: string | undefined;
  /** Aborts the run; the report says so. */
  signal?: AbortSignal | undefined;
  /** Receives progress events and counts. */
  onProgress?: ((event: BenchmarkEvent, snapshot: ProgressSnapshot) => void) | undefined;
  /** Daemon supervision; without it the daemon must already run at `address`. */
  supervision?: SupervisionOptions | undefined;
  /** Extra client options (keepalive, reconnect, deadlines). */
  client?: Omit<CuzkClientOptions, "address"> | undefined;
  /** How long to wait for the daemon to answer at the start, in ms. Default 600000 (parameters take minutes to load). */
  readyTimeoutMs?: number | undefined;
  /** Clock for the timed window, deadlines and uptime evidence (differences only). Default: monotonic (`performance.now`), so a stepped system clock changes no figure. */
  clock?: Clock | undefined;
  /** Sleep for phase deadlines and the PCE-file polls (pair it with `clock`). Default: a real timer. */
  sleep?: Sleep | undefined;
  /** Logger. Default: silent. */
  logger?: Logger | undefined;
}

/** BenchmarkOptions with defaults filled in and values checked. */
export interface ResolvedBenchmarkOptions
  extends Omit<
    BenchmarkOptions,
    | "kind"
    | "count"
    | "concurrency"
    | "warmup"
    | "resubmit"
    | "maxConsecutiveFailures"
    | "earlyVerdict"
    | "heartbeatMs"
    | "readyTimeoutMs"
    | "clock"
    | "sleep"
    | "logger"
  > {
  kind: ProofKind;
  count: number;
  concurrency: number;
  warmupProofs: number;
  resubmit: number;
  maxConsecutiveFailures: number;
  earlyVerdict: EarlyVerdictOptions | undefined;
  heartbeatMs: number;
  readyTimeoutMs: number;
  clock: Clock;
  sleep: Sleep;
  logger: Logger;
}

const kindByWire: Record<number, ProofKind> = { 1: "porep", 2: "snap", 3: "wpost", 4: "winning" };

function wholeNumber(
  name: string,
  value: number | undefined,
  fallback: number,
  min: number,
  hint: string,
): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < min)
    throw new InvalidInputError(`${name} must be a whole number >= ${min}, got ${String(value)}`, { hint });
  return value;
}

/** The tuner's benchmark concurrency for the machine. */
function autoConcurrency(
  kind: ProofKind,
  hardware: HardwareSpec | undefined,
  dialect: DaemonDialect | undefined,
): number {
  if (!hardware) {
    throw new InvalidInputError('concurrency "auto" needs the machine', {
      hint: "pass hardware (detectHardware() from @cuzkit/tuner, or hardwareFrom()), or give a number",
    });
  }
  const recommendation = recommend(hardware, { dialect: dialect ?? "budget", workload: { kind } });
  if (!recommendation.feasible) {
    throw new InvalidInputError(`no safe config for this machine: ${recommendation.infeasibleReason ?? ""}`, {
      hint: "give a concurrency explicitly, or try the other daemon dialect",
    });
  }
  return recommendation.bench.concurrency;
}

/** The proof kind: given, else read from the request's wire kind. */
function resolveKind(options: BenchmarkOptions): ProofKind {
  const wireKind = Number((options.request as { proofKind?: number }).proofKind ?? 0);
  const kind = options.kind ?? kindByWire[wireKind];
  if (kind === undefined || !proofKinds.includes(kind)) {
    throw new InvalidInputError(`unknown proof kind ${String(options.kind ?? wireKind)}`, {
      hint: `use one of ${proofKinds.join(", ")} and build the request with @cuzkit/client's request builders`,
    });
  }
  return kind;
}

/** Warmup proofs: "auto" is 1, "none" 0, else the count. */
function resolveWarmupProofs(warmup: BenchmarkOptions["warmup"]): number {
  const value = warmup ?? "auto";
  if (value === "auto") return 1;
  if (value === "none") return 0;
  return wholeNumber("warmup", value, 1, 0, 'give "auto", "none" or a number of proofs');
}

/** Rejects an input over the daemon's message cap. */
function checkInputSize(options: BenchmarkOptions): void {
  const vanilla = (options.request as { vanillaProof?: Uint8Array }).vanillaProof;
  if (vanilla && vanilla.byteLength > daemonMaxMessageBytes) {
    throw new InvalidInputError(
      `the proof input is ${(vanilla.byteLength / 2 ** 20).toFixed(1)} MiB, over the daemon's 128 MiB message cap`,
      { hint: "check the input file; a 32 GiB PoRep C1 output is about 51 MB" },
    );
  }
}

/** The threshold (positive) and the early verdict's options (which need the threshold). */
function resolveEarlyVerdict(options: BenchmarkOptions): EarlyVerdictOptions | undefined {
  if (options.minProofsPerHour !== undefined && !(options.minProofsPerHour > 0)) {
    throw new InvalidInputError(`minProofsPerHour must be positive, got ${options.minProofsPerHour}`, {
      hint: "give a threshold such as 30",
    });
  }
  const earlyVerdict =
    options.earlyVerdict === undefined || options.earlyVerdict === false
      ? undefined
      : options.earlyVerdict === true
        ? {}
        : options.earlyVerdict;
  if (earlyVerdict) {
    resolveEarlyVerdictOptions(earlyVerdict);
    if (options.minProofsPerHour === undefined) {
      throw new InvalidInputError("an early verdict needs a threshold", {
        hint: "give minProofsPerHour (cuzkit bench --min-proofs-per-hour N) with earlyVerdict",
      });
    }
  }
  return earlyVerdict;
}

/** Rejects bad supervision and watchdog settings. */
function checkSupervisionAndWatchdog(options: BenchmarkOptions): void {
  if (options.supervision) {
    const sup = options.supervision;
    wholeNumber("supervision.maxRestarts", sup.maxRestarts, 2, 0, "give a count of restarts, such as 2");
    if (sup.onCrash !== undefined && sup.onCrash !== "restart" && sup.onCrash !== "stop")
      throw new InvalidInputError(
        `supervision.onCrash must be "restart" or "stop", got ${String(sup.onCrash)}`,
        { hint: 'use "restart" or "stop"' },
      );
  }
  if (options.watchdog) {
    for (const [name, value] of Object.entries(options.watchdog))
      if (value !== undefined) wholeNumber(`watchdog.${name}`, value as number, 1, 1, "give a time in ms");
  }
}

/** Fills defaults and rejects bad options before any daemon work. */
export function resolveBenchmarkOptions(options: BenchmarkOptions): ResolvedBenchmarkOptions {
  const kind = resolveKind(options);
  const count = wholeNumber("count", options.count, 12, 1, "give the number of timed proofs, such as 12");
  const concurrency =
    options.concurrency === "auto"
      ? autoConcurrency(kind, options.hardware, options.dialect)
      : wholeNumber(
          "concurrency",
          options.concurrency,
          1,
          1,
          "give at least 1 proof in flight (cuzkit tune suggests one)",
        );
  const warmupProofs = resolveWarmupProofs(options.warmup);
  checkInputSize(options);
  const earlyVerdict = resolveEarlyVerdict(options);
  checkSupervisionAndWatchdog(options);
  return {
    ...options,
    kind,
    earlyVerdict,
    heartbeatMs: wholeNumber(
      "heartbeatMs",
      options.heartbeatMs,
      benchDefaults.heartbeatMs,
      1,
      "give a time in ms, such as 30000",
    ),
    count,
    concurrency,
    warmupProofs,
    resubmit: wholeNumber(
      "resubmit",
      options.resubmit,
      benchDefaults.resubmit,
      0,
      "give a count of resubmissions, such as 1",
    ),
    maxConsecutiveFailures: wholeNumber(
      "maxConsecutiveFailures",
      options.maxConsecutiveFailures,
      benchDefaults.maxConsecutiveFailures,
      1,
      "give at least 1",
    ),
    readyTimeoutMs: wholeNumber(
      "readyTimeoutMs",
      options.readyTimeoutMs,
      benchDefaults.readyTimeoutMs,
      1,
      "give a time in ms",
    ),
    clock: options.clock ?? monotonicClock,
    sleep: options.sleep ?? realSleep,
    logger: options.logger ?? silentLogger,
  };
}

import {
  type DaemonConfig,
  defaultDaemonConfig,
  type HardwareSpec,
  hardwareFrom,
  InvalidInputError,
  type Logger,
  silentLogger,
} from "@cuzkit/core";
import { type ListenAddress, parseListenAddress } from "./listen-address.js";
import { realScheduler, type SimScheduler } from "./scheduler.js";

/** Faults to inject. Each applies to every run of the daemon (a restart behaves like a process started again with the same flags), except `failNextProofs`, which is a counter that survives restarts. */
export interface SimFaults {
  /** Crash once this many proofs (COMPLETED or FAILED) have finished in one run; the last of them is still answered. Off when undefined. */
  crashAfterProofs?: number | undefined;
  /** Crash this many real milliseconds after the daemon starts listening. Off when undefined. */
  crashAtMs?: number | undefined;
  /**
   * Hold every proof that ends once this many proofs have finished in one run: its result is never
   * delivered (its waiters keep waiting) while the daemon answers everything else, until the run
   * ends (stop, crash, restart). For tests that need a batch still running. Off when undefined.
   */
  holdAfterProofs?: number | undefined;
  /** Fail the next `count` proofs submitted, with `message` as error_message. Off when undefined. */
  failNextProofs?: { count: number; message?: string | undefined } | undefined;
  /** Real milliseconds to wait (loading parameters) before listening; connections are refused meanwhile. Default 0. */
  startDelayMs?: number | undefined;
  /** Stall (answer nothing, not even PINGs) once this many proofs have finished in one run; the last of them is still answered. Off when undefined. */
  stallAfterProofs?: number | undefined;
  /**
   * Stick once this many proofs have finished in one run (0: from the first): every proof that
   * would end afterwards never does. The daemon keeps answering everything (GetStatus, PINGs);
   * the stuck job stays on a GPU worker as its current_job_id, AwaitProof never returns, and the
   * completed/failed counters stop: a GPU call that never returns. Unlike `stall`, nothing
   * freezes. Off when undefined.
   */
  stickAfterProofs?: number | undefined;
}

/** Options of startSimDaemon. Every option is optional; defaults are listed per field. */
export interface SimDaemonOptions {
  /** gRPC listen address: "IP:port", "[v6]:port" or "unix:///abs/path". Default "127.0.0.1:0" (an ephemeral port). */
  listen?: string | undefined;
  /** HTTP status listen address ("IP:port", TCP only), serving GET /status. Default: off. */
  statusListen?: string | undefined;
  /** The machine being simulated. Default: 2x RTX 3090, 251 GiB RAM, 32 CPU threads (the incident machine). */
  hardware?: HardwareSpec | undefined;
  /** The daemon config being simulated. Default: partition-workers dialect, partitionWorkers 4, gpuWorkersPerDevice 1 (safe on the default machine). */
  config?: DaemonConfig | undefined;
  /** Real seconds per modelled second. Default 0.001 (a 150 s proof takes 150 ms). */
  timeScale?: number | undefined;
  /** Fixed real duration of every proof in milliseconds, ignoring the model (no memory model, no OOM); 0 = instant. Default: off (use the model). */
  proofTimeMs?: number | undefined;
  /** With proofTimeMs: each proof takes proofTimeMs x (1 +- this share), drawn uniformly from `seed`. Default 0 (exactly proofTimeMs). */
  proofTimeJitter?: number | undefined;
  /** Seed of the jitter's random numbers, so a run can be repeated. Default 1. */
  seed?: number | undefined;
  /** Whether a PCE cache exists at start, so the first proof of each kind is warm. Default false (the first proof is cold). */
  pceCached?: boolean | undefined;
  /**
   * The daemon's srs.param_cache folder, where its PCE files live: a `pce-<circuit>.bin` found
   * there at start makes that circuit's first proof warm (the partition-workers dialect loads it
   * from disk; the budget daemon never does), and after the first cold proof's PCE extraction the
   * file is written there (~22 s later, modelled). Default: off (no file is read or written).
   */
  paramCacheDir?: string | undefined;
  /** Faults to inject. Default: none. */
  faults?: SimFaults | undefined;
  /** Where events are logged. Default: silent. */
  logger?: Logger | undefined;
  /** Clock and timers of the pipeline. Default: real time. */
  scheduler?: SimScheduler | undefined;
}

/** SimFaults with defaults applied. */
export interface ResolvedSimFaults {
  crashAfterProofs: number | undefined;
  crashAtMs: number | undefined;
  failNextProofs: { count: number; message: string };
  holdAfterProofs: number | undefined;
  startDelayMs: number;
  stallAfterProofs: number | undefined;
  stickAfterProofs: number | undefined;
}

/** SimDaemonOptions with every default applied and every value checked. */
export interface ResolvedSimOptions {
  listen: ListenAddress;
  statusListen: ListenAddress | undefined;
  hardware: HardwareSpec;
  config: DaemonConfig;
  timeScale: number;
  proofTimeMs: number | undefined;
  proofTimeJitter: number;
  seed: number;
  pceCached: boolean;
  paramCacheDir: string | undefined;
  faults: ResolvedSimFaults;
  logger: Logger;
  scheduler: SimScheduler;
}

/** Default listen address: loopback, ephemeral port. */
export const defaultSimListen = "127.0.0.1:0";
/** Default time scale: 1 modelled second = 1 real millisecond. */
export const defaultTimeScale = 0.001;
/** error_message of a proof failed by the failNextProofs fault when no message is given. */
export const defaultInjectedFailureMessage = "partition 0 GPU prove failed: injected failure (cuzkit sim)";

/** The machine of the incidents: 2x RTX 3090, 251 GiB RAM, 32 CPU threads. */
export function defaultSimHardware(): HardwareSpec {
  return hardwareFrom({ ram: "251GiB", cores: 32, gpus: "2xRTX3090" });
}

/** A config that is safe on the default machine: partition-workers dialect, 4 partition workers, 1 GPU worker per GPU. */
export function defaultSimConfig(): DaemonConfig {
  return { ...defaultDaemonConfig("partition-workers"), partitionWorkers: 4, gpuWorkersPerDevice: 1 };
}

function count(name: string, value: number | undefined, min = 0): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isInteger(value) || value < min) {
    throw new InvalidInputError(`${name} must be a whole number >= ${min}, got ${value}`, {
      hint: `set ${name} to ${min} or more`,
    });
  }
  return value;
}

function milliseconds(name: string, value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isFinite(value) || value < 0) {
    throw new InvalidInputError(`${name} must be a number of milliseconds >= 0, got ${value}`, {
      hint: `set ${name} to 0 or more`,
    });
  }
  return value;
}

function jitterShare(value: number | undefined): number {
  if (value === undefined) return 0;
  if (!(value >= 0 && value < 1)) {
    throw new InvalidInputError(`proofTimeJitter must be a share in [0, 1), got ${value}`, {
      hint: "use 0.2 for proofs within +-20% of proofTimeMs",
    });
  }
  return value;
}

/** Resolves faults, checking each value. */
export function resolveSimFaults(faults: SimFaults = {}): ResolvedSimFaults {
  return {
    crashAfterProofs: count("faults.crashAfterProofs", faults.crashAfterProofs, 1),
    crashAtMs: milliseconds("faults.crashAtMs", faults.crashAtMs),
    failNextProofs: {
      count: count("faults.failNextProofs.count", faults.failNextProofs?.count) ?? 0,
      message: faults.failNextProofs?.message ?? defaultInjectedFailureMessage,
    },
    holdAfterProofs: count("faults.holdAfterProofs", faults.holdAfterProofs, 1),
    startDelayMs: milliseconds("faults.startDelayMs", faults.startDelayMs) ?? 0,
    stallAfterProofs: count("faults.stallAfterProofs", faults.stallAfterProofs, 1),
    stickAfterProofs: count("faults.stickAfterProofs", faults.stickAfterProofs, 0),
  };
}

/** Applies the documented defaults and checks every option; throws InvalidInputError naming the option. */
export function resolveSimOptions(options: SimDaemonOptions = {}): ResolvedSimOptions {
  const listen = parseListenAddress(options.listen ?? defaultSimListen);
  const statusListen =
    options.statusListen === undefined ? undefined : parseListenAddress(options.statusListen);
  if (statusListen?.kind === "unix") {
    throw new InvalidInputError(
      `statusListen "${options.statusListen}" is a unix socket; the daemon's status endpoint listens on TCP only`,
      { hint: 'give an "IP:port" such as "127.0.0.1:9821"' },
    );
  }
  const hardware = options.hardware ?? defaultSimHardware();
  if (hardware.gpus.length === 0) {
    throw new InvalidInputError("the simulated machine has no GPU; the daemon needs at least one", {
      hint: 'give hardware with GPUs, such as hardwareFrom({ ram: "251GiB", cores: 32, gpus: "2xRTX3090" })',
    });
  }
  if (!(hardware.usableRamBytes > 0) || !(hardware.cpuThreads >= 1)) {
    throw new InvalidInputError("the simulated machine needs RAM and at least one CPU thread", {
      hint: "check hardware",
    });
  }
  const timeScale = options.timeScale ?? defaultTimeScale;
  if (!Number.isFinite(timeScale) || timeScale <= 0) {
    throw new InvalidInputError(`timeScale must be a number > 0, got ${timeScale}`, {
      hint: "use 0.001 for fast tests (150 s -> 150 ms) or 1 for real time",
    });
  }
  return {
    listen,
    statusListen,
    hardware,
    config: options.config ?? defaultSimConfig(),
    timeScale,
    proofTimeMs: milliseconds("proofTimeMs", options.proofTimeMs),
    proofTimeJitter: jitterShare(options.proofTimeJitter),
    seed: options.seed ?? 1,
    pceCached: options.pceCached ?? false,
    paramCacheDir: options.paramCacheDir,
    faults: resolveSimFaults(options.faults),
    logger: options.logger ?? silentLogger,
    scheduler: options.scheduler ?? realScheduler,
  };
}

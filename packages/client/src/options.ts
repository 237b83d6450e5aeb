import {
  type Clock,
  daemonMaxMessageBytes,
  InvalidInputError,
  type Logger,
  monotonicClock,
  type ProofKind,
  type Resolved,
  realSleep,
  type Sleep,
  silentLogger,
} from "@cuzkit/core";
import { type DaemonAddress, parseDaemonAddress } from "./address.js";
import {
  defaultStuckMarginFactor,
  defaultStuckMinMs,
  defaultStuckPollIntervalMs,
  type ResolvedStuckOptions,
} from "./stuck.js";

/** HTTP/2 keepalive while a call is open. */
export interface KeepaliveOptions {
  /** Send a PING after this long without a frame from the daemon, in ms. Default 15000. */
  pingIntervalMs?: number | undefined;
  /** Fail the connection when a PING is not answered within this, in ms. Default 10000. */
  pingTimeoutMs?: number | undefined;
  /** Close an HTTP/2 connection idle for this long, in ms. Default 900000 (15 min). */
  idleConnectionTimeoutMs?: number | undefined;
}

/** Deadlines per RPC kind, in milliseconds. Every call can override its own with `timeoutMs`. */
export interface DeadlineOptions {
  /** GetStatus. Default 10000 (the daemon forks nvidia-smi on each call). */
  statusMs?: number | undefined;
  /** GetMetrics. Default 10000. */
  metricsMs?: number | undefined;
  /** CancelProof (a no-op upstream). Default 10000. */
  cancelMs?: number | undefined;
  /** EvictSRS (a no-op upstream). Default 10000. */
  evictMs?: number | undefined;
  /** PreloadSRS: loading 44-57 GiB of parameters, and it may wait for memory. Default 600000 (10 min). */
  preloadMs?: number | undefined;
  /** SubmitProof base deadline, before the payload allowance. Default 10000. */
  submitBaseMs?: number | undefined;
  /** SubmitProof allowance per MiB of encoded request. Default 125 (1 s per 8 MiB). */
  submitPerMiBMs?: number | undefined;
  /** A whole proof (submit, await, reconnects and resubmits). Default 1800000 (30 min, like Curio). */
  proofMs?: number | undefined;
  /** A whole warmup proof: the first proof, without SRS in memory or PCE cache. Default 3600000 (60 min). */
  warmupProofMs?: number | undefined;
}

/** How `prove` reconnects after a broken connection. */
export interface ReconnectOptions {
  /** First delay between probes of the daemon, in ms. Default 250. */
  initialDelayMs?: number | undefined;
  /** Growth factor of the delay. Default 2. */
  factor?: number | undefined;
  /** Largest delay between probes, in ms. Default 5000. */
  maxDelayMs?: number | undefined;
  /** Give up (DaemonUnavailableError) when the daemon refused or reset connections for this long after a break, in ms. Default 120000. */
  giveUpAfterMs?: number | undefined;
  /** Report DaemonFrozenError when the daemon accepts connections but answers nothing for this long after a reset, in ms (after a PING timeout one silent probe suffices). Default 15000. */
  frozenAfterMs?: number | undefined;
  /** Deadline of each probe (GetStatus), in ms. Default 5000. */
  probeTimeoutMs?: number | undefined;
}

/**
 * Stuck-job detection while `prove` awaits a job: it samples GetStatus every `pollIntervalMs` and
 * fails the call with DaemonStuckError when the job made no progress (no completed/failed counter
 * moved, the job did not reach a GPU, the kind's queue did not shrink) for the window: the core
 * model's expected duration of the proof on the GPU GetStatus names x `marginFactor`, at least
 * `minMs`; or `afterMs` when given. The job is never resubmitted.
 */
export interface StuckOptions {
  /** Multiplies the model's expected duration of one proof; Infinity turns detection off. Default 3. */
  marginFactor?: number | undefined;
  /** A fixed window without progress in ms, instead of the model's ETA x margin; Infinity turns detection off. Default: unset (from the model). */
  afterMs?: number | undefined;
  /** Least window when it comes from the model, in ms (short proofs are never called stuck under it). Default 120000. */
  minMs?: number | undefined;
  /** GetStatus interval while a job is awaited, in ms (at most a quarter of the window). Default 15000. */
  pollIntervalMs?: number | undefined;
}

/** Options of `createCuzkClient`. Only `address` is required. */
export interface CuzkClientOptions {
  /** Daemon address: `unix:///run/curio/cuzk.sock`, `127.0.0.1:9820`, `[::1]:9820`, `http://host:9820`. */
  address: string;
  /** HTTP/2 keepalive. Defaults: 15 s interval, 10 s timeout (a frozen daemon fails a call within 25 s, prove within 30 s). */
  keepalive?: KeepaliveOptions | undefined;
  /** Deadlines per RPC kind; see DeadlineOptions for each default. */
  deadlines?: DeadlineOptions | undefined;
  /** Reconnect backoff for `prove`; see ReconnectOptions for each default. */
  reconnect?: ReconnectOptions | undefined;
  /** Stuck-job detection in `prove`; false turns it off. Defaults: see StuckOptions (ETA x 3, at least 2 min, polled every 15 s). */
  stuck?: StuckOptions | false | undefined;
  /**
   * How many times `prove` may resubmit a job the daemon lost (restart, OOM kill), per kind.
   * Default: porep 0, snap 0 (large inputs, long proofs, an OOM tends to repeat), wpost 2, winning 2
   * (small inputs, deadline-critical). A per-call `resubmit` overrides it.
   */
  resubmit?: Partial<Record<ProofKind, number | undefined>> | undefined;
  /** Proofs in flight at once through this client (prove and `admit`); the excess waits in FIFO order; Infinity: no limit. Default 10 (Curio's MaxPending). */
  maxInFlight?: number | undefined;
  /** Largest encoded request the client sends, in bytes. Default 134217728 (the daemon's 128 MiB cap). */
  maxRequestBytes?: number | undefined;
  /** Reuse a GetStatus seen this recently as the uptime baseline of a new proof, in ms. Default 30000. */
  statusBaselineMaxAgeMs?: number | undefined;
  /** Where the client logs its steps. Default: silent. */
  logger?: Logger | undefined;
  /**
   * Monotonic clock for elapsed times, deadlines, the reconnect budget and the uptime evidence
   * of a restart. Default: `performance.now()` (a wall clock here would read a step of the
   * system clock as a daemon restart).
   */
  clock?: Clock | undefined;
  /** Sleep used between reconnect probes and readiness polls. Default: a real timer. */
  sleep?: Sleep | undefined;
  /** Random source for request ids (0 <= x < 1). Default Math.random. */
  random?: (() => number) | undefined;
}

/** Every client option with its default filled in. */
export interface ResolvedClientOptions {
  address: DaemonAddress;
  keepalive: Resolved<KeepaliveOptions>;
  deadlines: Resolved<DeadlineOptions>;
  reconnect: Resolved<ReconnectOptions>;
  stuck: ResolvedStuckOptions;
  resubmit: Record<ProofKind, number>;
  maxInFlight: number;
  maxRequestBytes: number;
  statusBaselineMaxAgeMs: number;
  logger: Logger;
  clock: Clock;
  sleep: Sleep;
  random: () => number;
}

/** Default keepalive: 15 s + 10 s. */
export const defaultKeepalive: Resolved<KeepaliveOptions> = {
  pingIntervalMs: 15_000,
  pingTimeoutMs: 10_000,
  idleConnectionTimeoutMs: 15 * 60_000,
};

/** Default deadlines per RPC kind. */
export const defaultDeadlines: Resolved<DeadlineOptions> = {
  statusMs: 10_000,
  metricsMs: 10_000,
  cancelMs: 10_000,
  evictMs: 10_000,
  preloadMs: 10 * 60_000,
  submitBaseMs: 10_000,
  submitPerMiBMs: 125,
  proofMs: 30 * 60_000,
  warmupProofMs: 60 * 60_000,
};

/** Default reconnect backoff: 250 ms doubling to 5 s; unreachable after 2 min, frozen after 15 s of silence. */
export const defaultReconnect: Resolved<ReconnectOptions> = {
  initialDelayMs: 250,
  factor: 2,
  maxDelayMs: 5_000,
  giveUpAfterMs: 120_000,
  frozenAfterMs: 15_000,
  probeTimeoutMs: 5_000,
};

/** Default stuck detection: on, the model's ETA x 3, at least 2 min, GetStatus every 15 s. */
export const defaultStuck: ResolvedStuckOptions = {
  enabled: true,
  marginFactor: defaultStuckMarginFactor,
  afterMs: undefined,
  minMs: defaultStuckMinMs,
  pollIntervalMs: defaultStuckPollIntervalMs,
};

/** Checks the stuck option: every value positive, Infinity (margin or window) meaning off. */
function resolveStuck(stuck: StuckOptions | false | undefined): ResolvedStuckOptions {
  if (stuck === false) return { ...defaultStuck, enabled: false };
  if (stuck === undefined) return { ...defaultStuck };
  if (stuck === null || typeof stuck !== "object") {
    throw new InvalidInputError(`invalid client option stuck: ${String(stuck)}`, {
      hint: "give stuck as an object ({ marginFactor: 3 }, { afterMs: 600000 }) or false to turn detection off",
    });
  }
  const marginFactor = positive(
    "stuck.marginFactor",
    stuck.marginFactor,
    defaultStuckMarginFactor,
    false,
    true,
  );
  const afterMs =
    stuck.afterMs === undefined ? undefined : positive("stuck.afterMs", stuck.afterMs, 0, false, true);
  return {
    enabled: afterMs === undefined ? Number.isFinite(marginFactor) : Number.isFinite(afterMs),
    marginFactor,
    afterMs,
    minMs: positive("stuck.minMs", stuck.minMs, defaultStuckMinMs, true),
    pollIntervalMs: positive("stuck.pollIntervalMs", stuck.pollIntervalMs, defaultStuckPollIntervalMs),
  };
}

/** Default resubmit budget per kind. */
export const defaultResubmit: Record<ProofKind, number> = { porep: 0, snap: 0, wpost: 2, winning: 2 };

/** Default admission limit (Curio's `MaxPending`). */
export const defaultMaxInFlight = 10;

function positive(
  name: string,
  value: number | undefined,
  fallback: number,
  allowZero = false,
  allowInfinity = false,
): number {
  if (value === undefined) return fallback;
  if (allowInfinity && value === Number.POSITIVE_INFINITY) return value;
  // Infinity is refused too: every wait has an end, and an infinite deadline used to reach
  // the wire as a BigInt RangeError after the job was submitted.
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0 || (!allowZero && value === 0)) {
    throw new InvalidInputError(`invalid client option ${name}: ${String(value)}`, {
      hint: `give ${name} as a ${allowZero ? "non-negative" : "positive"}, finite number${allowInfinity ? " (or Infinity for no limit)" : " (Infinity is refused: give a large value instead)"}`,
    });
  }
  return value;
}

/**
 * Fills every client option with its documented default and checks the values. The address
 * is parsed here, so a bad address fails at creation with InvalidAddressError.
 */
export function resolveClientOptions(options: CuzkClientOptions): ResolvedClientOptions {
  if (options === null || typeof options !== "object") {
    throw new InvalidInputError("createCuzkClient needs an options object", {
      hint: "pass { address: '127.0.0.1:9820' }",
    });
  }
  const address = parseDaemonAddress(options.address);
  const k = options.keepalive ?? {};
  const d = options.deadlines ?? {};
  const r = options.reconnect ?? {};
  const resubmit = { ...defaultResubmit };
  for (const [kind, n] of Object.entries(options.resubmit ?? {})) {
    if (n !== undefined) resubmit[kind as ProofKind] = Math.floor(positive(`resubmit.${kind}`, n, 0, true));
  }
  return {
    address,
    keepalive: {
      pingIntervalMs: positive("keepalive.pingIntervalMs", k.pingIntervalMs, defaultKeepalive.pingIntervalMs),
      pingTimeoutMs: positive("keepalive.pingTimeoutMs", k.pingTimeoutMs, defaultKeepalive.pingTimeoutMs),
      idleConnectionTimeoutMs: positive(
        "keepalive.idleConnectionTimeoutMs",
        k.idleConnectionTimeoutMs,
        defaultKeepalive.idleConnectionTimeoutMs,
      ),
    },
    deadlines: {
      statusMs: positive("deadlines.statusMs", d.statusMs, defaultDeadlines.statusMs),
      metricsMs: positive("deadlines.metricsMs", d.metricsMs, defaultDeadlines.metricsMs),
      cancelMs: positive("deadlines.cancelMs", d.cancelMs, defaultDeadlines.cancelMs),
      evictMs: positive("deadlines.evictMs", d.evictMs, defaultDeadlines.evictMs),
      preloadMs: positive("deadlines.preloadMs", d.preloadMs, defaultDeadlines.preloadMs),
      submitBaseMs: positive("deadlines.submitBaseMs", d.submitBaseMs, defaultDeadlines.submitBaseMs),
      submitPerMiBMs: positive(
        "deadlines.submitPerMiBMs",
        d.submitPerMiBMs,
        defaultDeadlines.submitPerMiBMs,
        true,
      ),
      proofMs: positive("deadlines.proofMs", d.proofMs, defaultDeadlines.proofMs),
      warmupProofMs: positive("deadlines.warmupProofMs", d.warmupProofMs, defaultDeadlines.warmupProofMs),
    },
    reconnect: {
      initialDelayMs: positive(
        "reconnect.initialDelayMs",
        r.initialDelayMs,
        defaultReconnect.initialDelayMs,
        true,
      ),
      factor: Math.max(1, positive("reconnect.factor", r.factor, defaultReconnect.factor)),
      maxDelayMs: positive("reconnect.maxDelayMs", r.maxDelayMs, defaultReconnect.maxDelayMs, true),
      giveUpAfterMs: positive(
        "reconnect.giveUpAfterMs",
        r.giveUpAfterMs,
        defaultReconnect.giveUpAfterMs,
        true,
      ),
      frozenAfterMs: positive(
        "reconnect.frozenAfterMs",
        r.frozenAfterMs,
        defaultReconnect.frozenAfterMs,
        true,
      ),
      probeTimeoutMs: positive("reconnect.probeTimeoutMs", r.probeTimeoutMs, defaultReconnect.probeTimeoutMs),
    },
    stuck: resolveStuck(options.stuck),
    resubmit,
    maxInFlight: Math.floor(positive("maxInFlight", options.maxInFlight, defaultMaxInFlight, false, true)),
    maxRequestBytes: positive("maxRequestBytes", options.maxRequestBytes, daemonMaxMessageBytes),
    statusBaselineMaxAgeMs: positive("statusBaselineMaxAgeMs", options.statusBaselineMaxAgeMs, 30_000, true),
    logger: options.logger ?? silentLogger,
    clock: options.clock ?? monotonicClock,
    sleep: options.sleep ?? realSleep,
    random: options.random ?? Math.random,
  };
}

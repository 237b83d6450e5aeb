// The library defaults that the commands' help states, copied here so that a command's
// definition loads none of the libraries they come from (the gRPC client, the simulator, the
// benchmark harness, the Vast client) when `cuzkit` starts: only the command that runs loads
// its implementation. help-defaults.test.ts fails when a copy differs from its library's value.

/** @cuzkit/client's defaultDeadlines, defaultStuck and defaultResubmit, as far as the help states them. */
export const clientHelpDefaults = {
  /** defaultDeadlines.proofMs: deadline of one proof, ms (30 min). */
  proofMs: 30 * 60_000,
  /** defaultDeadlines.warmupProofMs: deadline of the first proof after a start, ms (60 min). */
  warmupProofMs: 60 * 60_000,
  /** defaultStuck.minMs: the shortest stuck window, ms (2 min). */
  stuckMinMs: 120_000,
  /** defaultStuck.marginFactor: the stuck window is the model's ETA times this (3). */
  stuckMarginFactor: 3,
  /** defaultResubmit: resubmissions of a lost job per proof kind, in the client's order. */
  resubmit: { porep: 0, snap: 0, wpost: 2, winning: 2 },
} as const;

/** @cuzkit/bench's benchDefaults, as far as the help states them. */
export const benchHelpDefaults = {
  /** Resubmissions of a proof the daemon lost (1). */
  resubmit: 1,
  /** How long to wait for the daemon to answer, ms (10 min). */
  readyTimeoutMs: 600_000,
  /** Restarts allowed with --on-crash restart (2). */
  maxRestarts: 2,
} as const;

/** @cuzkit/sim's defaultTimeScale: real seconds per modelled second (0.001). */
export const simHelpTimeScale = 0.001;

/** @cuzkit/tuner's tuneDefaults and defaultCurioCuzkAddress, as far as the help states them. */
export const tunerHelpDefaults = {
  /** The daemon dialect a config is written for. */
  dialect: "budget",
  /** The workload preset. */
  workload: "porep",
  /** RAM kept free, a fraction of the usable RAM (10%). */
  safetyMarginFraction: 0.1,
  /** The least RAM kept free with a percentage, bytes (4 GiB). */
  minSafetyMarginBytes: 4 * 2 ** 30,
  /** Curio MaxPending slots left for PoSt beyond the concurrency (2). */
  postSlots: 2,
  /** The least Curio ProveTimeout, s (30 min). */
  minProveTimeoutSec: 1800,
  /** Curio's [Cuzk] Address when --addr is not given. */
  curioCuzkAddress: "unix:///run/curio/cuzk.sock",
} as const;

/** @cuzkit/vast's defaultLogOptions, defaultDiskGb and defaultWaitOptions, as far as the help states them. */
export const vastHelpDefaults = {
  /** defaultLogOptions.tail: last lines of an instance's log (1000). */
  logTail: 1000,
  /** defaultLogOptions.pollTimeoutMs: how long to wait for the log, ms (60 s). */
  logPollTimeoutMs: 60_000,
  /** defaultDiskGb: the disk an offer is priced with and an instance rents, GB (10). */
  diskGb: 10,
  /** defaultWaitOptions.timeoutMs: how long a wait for a running instance lasts, ms (30 min). */
  waitTimeoutMs: 30 * 60_000,
} as const;

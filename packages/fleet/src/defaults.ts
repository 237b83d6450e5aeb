// The fleet's defaults in one module that imports nothing, so the CLI can state them in its
// help text without loading the manager (its HTTP server, store drivers and dashboard).

/** Defaults of the fleet's config (resolveFleetConfig) and its stores. */
export const fleetDefaults = {
  /** The fleet's name, part of every label `cuzkit-fleet-<fleet>-<instance>`. */
  fleet: "default",
  /** Disk per instance, GB. */
  diskGb: 150,
  /** Timed proofs of each machine's benchmark. */
  benchmarkProofs: 12,
  /** A benchmark above this many times the model's rate for the hardware is suspect (see benchmark-claim.ts for why 3). */
  suspectFactor: 3,
  /** A benchmark claim above this many times its own records' rate is a lie (see benchmark-claim.ts for why 1.25). */
  contradictionFactor: 1.25,
  /** The production window: a kept machine counts at its production over it, and the keep rule waits a full one, ms. */
  productionWindowMs: 2 * 60 * 60_000,
  /** Factor on modelled durations when a phase deadline is derived. */
  deadlineMargin: 1.5,
  /** Size of the prover image a machine pulls, bytes (12 GiB). */
  imageBytes: 12 * 2 ** 30,
  /** Size of the 32 GiB proof parameters a machine fetches, bytes (47 GiB). */
  paramsBytes: 47 * 2 ** 30,
  /** How long a labelled instance the store does not know is left alone before it is destroyed, ms. */
  unknownGraceMs: 10 * 60_000,
  /** How long a failed destroy is retried before the instance is flagged, ms. */
  destroyRetryWindowMs: 15 * 60_000,
  /** How often agents heartbeat, ms. */
  heartbeatIntervalMs: 30_000,
  /** The PostgreSQL schema of the fleet's tables. */
  postgresSchema: "cuzkit_fleet",
  /** The schema of Curio's tables in HarmonyDB. */
  curioSchema: "curio",
  /** How often the manager reconciles its store with Vast.ai's instance list, ms. */
  reconcileEveryMs: 60_000,
  /** How often the manager checks phase deadlines and heartbeats, ms. */
  monitorEveryMs: 10_000,
  /** Time between two steps of `fleet run` (startFleetRun), ms. */
  runEveryMs: 60_000,
  /** How often a follower tries to take the writer lease, and the holder renews it, ms (at most a third of the lease period). */
  leaseCheckEveryMs: 5_000,
  /**
   * How long the writer lease lasts unless renewed, ms: three monitor intervals, so a leader
   * survives two missed renewals (a GC pause, a slow disk) yet a frozen one is replaced within
   * this plus one follower check (35 s).
   */
  leasePeriodMs: 30_000,
  /** How long a machine's exclusion lasts after the evidence that earned it, ms (7 days). */
  exclusionPeriodMs: 7 * 24 * 3_600_000,
  /** Machine-attributable failures within the exclusion period that exclude a machine. */
  exclusionRepeatFailures: 2,
  /** Weight, in rentals, of the prior in each failure-rate estimate (its shrinkage). */
  failureRatePriorRentals: 4,
} as const;

/** Defaults of the agent on each machine (runAgent). */
export const agentDefaults = {
  /** Once kept: how often production throughput is reported, ms. */
  throughputIntervalMs: 30 * 60_000,
} as const;

/** Bounds of the log tail an agent keeps and ships (agent/log-tail.ts) and the manager stores. */
export const logTailDefaults = {
  /** Lines the agent keeps per stream (the daemon's, its own). */
  maxLinesPerStream: 200,
  /** Bytes (UTF-8) the agent keeps per stream. */
  maxBytesPerStream: 32 * 1024,
  /** Characters of one line; a longer line is cut and marked. */
  maxLineChars: 2000,
  /** Lines of one shipment. */
  maxShipLines: 400,
  /** Bytes (UTF-8, the lines' text) of one shipment. */
  maxShipBytes: 48 * 1024,
  /** The least time between two shipments, except on a failure, ms. */
  shipEveryMs: 30_000,
  /** Lines the manager keeps per instance (the newest). */
  storeKeepLines: 500,
} as const;

/** Defaults of following Curio's backlog (`fleet run --follow-backlog`, decideBacklogTarget). */
export const backlogDefaults = {
  /** The fewest machines the fleet keeps, however quiet Curio is. */
  minInstances: 1,
  /** The most machines the fleet rents, however deep the backlog. */
  maxInstances: 4,
  /** The snark market's deadline for one proof, from its posting, ms (45 min). */
  proofDeadlineMs: 45 * 60_000,
  /** Curio's cuzk `ProveTimeout` (deps/config/types.go, default 30 min): the longest a claimed proof may take, ms. */
  proveTimeoutMs: 30 * 60_000,
  /** Scale up when the backlog would take longer than this to clear, ms: the deadline less ProveTimeout (15 min). */
  clearBoundMs: 15 * 60_000,
  /** Quiet means a time to clear at most this fraction of the bound (the hysteresis band's low edge). */
  quietFraction: 0.5,
  /** How long Curio must stay quiet before the fleet scales down, ms (30 min). */
  idleWindowMs: 30 * 60_000,
} as const;

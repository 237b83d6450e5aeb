import { z } from "zod";
import { benchVerdicts } from "../decision.js";

// The bodies agents send, validated before anything is read from them. Strings and arrays
// are bounded so a body within the size limit still cannot make the store grow without end.

const shortText = z.string().max(200);
const message = z.string().max(4_000);

/** Hardware the agent detected on the machine (what the tuner used). */
export const detectedHardwareSchema = z.object({
  ramBytes: z.number().nonnegative(),
  usableRamBytes: z.number().nonnegative(),
  cpuThreads: z.number().int().positive(),
  gpus: z.array(z.object({ model: shortText, vramBytes: z.number().nonnegative() })).max(64),
});

/** POST /v1/agent/register */
export const registerBodySchema = z.strictObject({
  agentVersion: shortText,
  hardware: detectedHardwareSchema.optional(),
});
/** A register body. */
export type RegisterBody = z.infer<typeof registerBodySchema>;

/** POST /v1/agent/phase: the next phase began. */
export const phaseBodySchema = z.strictObject({
  phase: z.enum(["params", "warmup", "benchmarking"]),
  /** The tuned cuzk.toml, sent with warmup. */
  tunedConfig: z
    .string()
    .max(64 * 1024)
    .optional(),
  detail: message.optional(),
});
/** A phase body. */
export type PhaseBody = z.infer<typeof phaseBodySchema>;

/** POST /v1/agent/heartbeat */
export const heartbeatBodySchema = z.strictObject({
  phase: shortText.optional(),
  /** Timed proofs done so far. */
  done: z.number().int().nonnegative().optional(),
  /** The daemon's HTTP /status as the agent read it (fetchStatusJson); shown on the instance page. */
  daemonStatus: z.record(z.string(), z.unknown()).optional(),
});
/** A heartbeat body. */
export type HeartbeatBody = z.infer<typeof heartbeatBodySchema>;

/** POST /v1/agent/failure: a step failed on the machine. */
export const failureBodySchema = z.strictObject({
  phase: z.enum(["register", "params", "tune", "warmup", "benchmarking", "serving"]),
  /** The error class name, such as "ParamsCommandError". */
  errorClass: shortText,
  /** The stable error code. */
  code: shortText,
  message,
});
/** A failure body. */
export type FailureBody = z.infer<typeof failureBodySchema>;

/** One proof of the benchmark, warmup included. */
export const proofRecordSchema = z.strictObject({
  index: z.number().int().nonnegative(),
  warmup: z.boolean(),
  ok: z.boolean(),
  wallMs: z.number().nonnegative().optional(),
  /**
   * When the proof was submitted and when it settled, ms on the run's clock (the manager
   * recomputes the rate from them). Absent from agents before claims were checked: such a
   * report cannot support a rate and is refused with that reason.
   */
  submitMs: z.number().nonnegative().optional(),
  settleMs: z.number().nonnegative().optional(),
  errorClass: shortText.optional(),
  code: shortText.optional(),
  message: message.optional(),
});
/** A proof record. */
export type ProofRecord = z.infer<typeof proofRecordSchema>;

/** POST /v1/agent/report: the benchmark's outcome with every proof. */
export const finalReportBodySchema = z.strictObject({
  verdict: z
    .enum(benchVerdicts as [string, ...string[]])
    .transform((v) => v as (typeof benchVerdicts)[number]),
  proofsPerHour: z.number().nonnegative(),
  proofs: z.array(proofRecordSchema).max(10_000),
  tunedConfig: z
    .string()
    .max(64 * 1024)
    .optional(),
  /** Summary figures of the run (timed window, restarts, wall-time stats). */
  summary: z.record(z.string(), z.union([z.number(), z.string(), z.boolean(), z.null()])).optional(),
});
/** A final report body. */
export type FinalReportBody = z.infer<typeof finalReportBodySchema>;

/** POST /v1/agent/throughput: proofs an active machine finished in production over a window. */
export const throughputBodySchema = z.strictObject({
  /** Proofs finished in the window. */
  proofs: z.number().int().nonnegative().max(1_000_000),
  /** The window, ms (1 minute to 1 day). */
  windowMs: z.number().int().min(60_000).max(86_400_000),
});
/** A throughput body. */
export type ThroughputBody = z.infer<typeof throughputBodySchema>;

/** The streams of an agent's log tail: the daemon's output, and the agent's own lines. */
export const logStreams = ["daemon", "agent"] as const;
/** A log stream. */
export type LogStream = (typeof logStreams)[number];

/** Why an agent shipped its log tail. */
export const logShipReasons = ["failure", "phase", "request"] as const;

/** One line of an agent's log tail (redacted on the machine, and again by the manager). */
export const logLineSchema = z.strictObject({
  stream: z.enum(logStreams),
  /** When the agent read it, epoch ms. */
  at: z.number().int().nonnegative(),
  /** Bounded by the schema only structurally: the manager's own limit (logTailDefaults) is a typed refusal. */
  text: z.string().max(64 * 1024),
});
/** A log line. */
export type LogLine = z.infer<typeof logLineSchema>;

/** POST /v1/agent/logs: the lines the agent has not shipped yet, oldest first. */
export const logsBodySchema = z.strictObject({
  reason: z.enum(logShipReasons),
  /** The agent's phase when it shipped. */
  phase: shortText.optional(),
  lines: z.array(logLineSchema).max(10_000),
  /** Lines the agent dropped from this shipment to keep it within its size (the oldest). */
  dropped: z.number().int().nonnegative().optional(),
});
/** A logs body. */
export type LogsBody = z.infer<typeof logsBodySchema>;

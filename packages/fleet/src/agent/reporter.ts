import { appendFile, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { realSleep, retry, type Sleep } from "@cuzkit/core";
import { fleetDefaults } from "../defaults.js";
import { FleetError, type FleetSubclassOptions } from "../errors.js";
import type { AgentInstructions, ReportAnswer } from "../protocol/answers.js";
import type {
  FailureBody,
  FinalReportBody,
  HeartbeatBody,
  LogsBody,
  PhaseBody,
  RegisterBody,
  ThroughputBody,
} from "../protocol/requests.js";

/** Where an agent sends what it does: the manager over HTTP, or files when it runs standalone. */
export interface AgentReporter {
  readonly kind: "manager" | "disk";
  register(body: RegisterBody): Promise<AgentInstructions>;
  phase(body: PhaseBody): Promise<void>;
  /** "stop" when the manager has given the machine up; "send-logs" when it asks for the log tail. */
  heartbeat(body: HeartbeatBody): Promise<"ok" | "stop" | "send-logs">;
  failure(body: FailureBody): Promise<void>;
  report(body: FinalReportBody): Promise<ReportAnswer>;
  /** Production of a kept machine over a window (optional: a reporter without it skips the reports). */
  throughput?: ((body: ThroughputBody) => Promise<void>) | undefined;
  /** Ships lines of the log tail (optional: a reporter without it keeps them on the machine). */
  logs?: ((body: LogsBody) => Promise<void>) | undefined;
}

/** The manager refused a request (4xx): retrying it cannot help. */
export class AgentRequestRefusedError extends FleetError<"FLEET_AGENT_REFUSED"> {
  /** The HTTP status the manager answered. */
  readonly status: number;
  /** The manager's own error code (such as FLEET_TRANSITION_REFUSED). */
  readonly serverCode: string;

  constructor(
    message: string,
    options: FleetSubclassOptions & { status: number; serverCode?: string | undefined },
  ) {
    super(message, {
      ...options,
      code: "FLEET_AGENT_REFUSED",
      hint:
        options.hint ??
        (options.status === 401 || options.status === 403
          ? "check CUZKIT_FLEET_TOKEN and CUZKIT_INSTANCE_ID: they must be the pair the manager set at deploy"
          : "the manager's state moved on (a finished phase); the agent stops this step"),
    });
    this.status = options.status;
    this.serverCode = options.serverCode ?? "REFUSED";
  }
}

/** The manager could not be reached after the retries. */
export class AgentManagerUnreachableError extends FleetError<"FLEET_MANAGER_UNREACHABLE"> {
  constructor(message: string, options: FleetSubclassOptions = {}) {
    super(message, {
      ...options,
      code: "FLEET_MANAGER_UNREACHABLE",
      hint:
        options.hint ??
        "check CUZKIT_FLEET_URL, and that the manager listens on an address this machine can reach (--listen)",
      retryable: options.retryable ?? true,
    });
  }
}

/** Options of the HTTP reporter. */
export interface HttpReporterOptions {
  /** CUZKIT_FLEET_URL. */
  url: string;
  /** CUZKIT_FLEET_TOKEN. */
  token: string;
  /** CUZKIT_INSTANCE_ID. */
  instanceId: string;
  /** Attempts per request on network errors and 5xx. Default 10 (about 4 minutes: a manager restart). */
  attempts?: number | undefined;
  /** Wait between attempts, ms (doubling, at most 60 s). Default 1000. */
  retryDelayMs?: number | undefined;
  /** Per-request timeout, ms. Default 15 000. */
  timeoutMs?: number | undefined;
  /**
   * When it aborts (the agent is stopping), a wait between attempts ends at once and a request
   * makes one more attempt, then no retries: a stopping agent still sends its last words, but does
   * not wait minutes for a manager that is gone. Default: none (every request retries fully).
   */
  stopRetriesOn?: AbortSignal | undefined;
  /** Default: a real timer. */
  sleep?: Sleep | undefined;
}

/** Reports to the manager's agent endpoints with the instance's token. */
export function createHttpReporter(options: HttpReporterOptions): AgentReporter {
  const attempts = options.attempts ?? 10;
  const sleep = options.sleep ?? realSleep;
  const base = `${options.url.replace(/\/+$/, "")}/v1/agent/${encodeURIComponent(options.instanceId)}`;

  const stopping = options.stopRetriesOn;
  async function attemptPost<T>(path: string, body: unknown): Promise<T> {
    const response = await fetch(`${base}/${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${options.token}` },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(options.timeoutMs ?? 15_000),
    });
    const answer = (await response.json().catch(() => ({}))) as { error?: string; message?: string };
    if (response.ok) return answer as T;
    if (response.status >= 400 && response.status < 500) {
      const serverCode = answer.error ?? "REFUSED";
      throw new AgentRequestRefusedError(
        `the manager refused the request (${response.status} ${serverCode}): ${answer.message ?? ""}`,
        { status: response.status, serverCode, instanceId: options.instanceId },
      );
    }
    throw new Error(`HTTP ${response.status}`);
  }

  async function post<T>(path: string, body: unknown): Promise<T> {
    try {
      return await retry(() => attemptPost<T>(path, body), {
        maxAttempts: attempts,
        minDelayMs: options.retryDelayMs ?? 1000,
        maxDelayMs: 60_000,
        factor: 2,
        // Agents of one fleet lose the manager together (its restart): spread their retries.
        jitter: 0.2,
        shouldRetry: (error) => !(error instanceof AgentRequestRefusedError) && stopping?.aborted !== true,
        // A stop ends the wait early; the attempt after it is the last (shouldRetry above).
        sleep: (ms) => sleep(ms, stopping).catch(() => {}),
      });
    } catch (error) {
      if (error instanceof AgentRequestRefusedError) throw error;
      throw new AgentManagerUnreachableError(`cannot reach the fleet manager at ${options.url}`, {
        cause: error,
        instanceId: options.instanceId,
      });
    }
  }

  return {
    kind: "manager",
    async register(body) {
      return (await post<{ instructions: AgentInstructions }>("register", body)).instructions;
    },
    async phase(body) {
      await post("phase", body);
    },
    async heartbeat(body) {
      try {
        const answer = await post<{ sendLogs?: unknown }>("heartbeat", body);
        return answer.sendLogs === true ? "send-logs" : "ok";
      } catch (error) {
        if (error instanceof AgentRequestRefusedError && error.status === 409) return "stop";
        throw error;
      }
    },
    async failure(body) {
      await post("failure", body);
    },
    async report(body) {
      return post<ReportAnswer>("report", body);
    },
    async throughput(body) {
      await post("throughput", body);
    },
    async logs(body) {
      await post("logs", body);
    },
  };
}

/** Options of the disk reporter (standalone runs). */
export interface DiskReporterOptions {
  /** Folder for the reports. Required. */
  dir: string;
  /** The keep threshold used to decide locally. Default: none (MET keeps). */
  minProofsPerHour?: number | undefined;
  /** Timed proofs. Default 12. */
  benchmarkProofs?: number | undefined;
  /** Heartbeat interval, ms. Default 30 000. */
  heartbeatIntervalMs?: number | undefined;
}

/** Writes each step as JSON into `dir` (`events.jsonl`, `report.json`) and decides MET -> keep itself. */
export function createDiskReporter(options: DiskReporterOptions): AgentReporter {
  const log = async (type: string, body: unknown) => {
    await mkdir(options.dir, { recursive: true });
    await appendFile(
      join(options.dir, "events.jsonl"),
      `${JSON.stringify({ at: new Date().toISOString(), type, body })}\n`,
    );
  };
  return {
    kind: "disk",
    async register(body) {
      await log("register", body);
      return {
        instanceId: "standalone",
        minProofsPerHour: options.minProofsPerHour ?? 0,
        benchmarkProofs: options.benchmarkProofs ?? 12,
        heartbeatIntervalMs: options.heartbeatIntervalMs ?? fleetDefaults.heartbeatIntervalMs,
        dialect: "budget",
      };
    },
    phase: (body) => log("phase", body),
    async heartbeat(body) {
      await log("heartbeat", body);
      return "ok";
    },
    async failure(body) {
      await log("failure", body);
      await writeFile(join(options.dir, "failure.json"), `${JSON.stringify(body, null, 2)}\n`);
    },
    async report(body) {
      await log("report", { verdict: body.verdict, proofsPerHour: body.proofsPerHour });
      await writeFile(join(options.dir, "report.json"), `${JSON.stringify(body, null, 2)}\n`);
      const keep =
        body.verdict === "MET" &&
        (options.minProofsPerHour === undefined || body.proofsPerHour >= options.minProofsPerHour);
      return { state: keep ? "active" : "rejected", keep, reason: `standalone: ${body.verdict}` };
    },
    throughput: (body) => log("throughput", body),
    logs: (body) => log("logs", body),
  };
}

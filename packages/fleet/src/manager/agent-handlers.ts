import { redactSecrets, secretsFromEnv } from "../agent/redact.js";
import { curioNodeNameOf } from "../curio/machine-map.js";
import { type Decision, decideBenchmark } from "../decision.js";
import { logTailDefaults } from "../defaults.js";
import { FleetLogTailTooLargeError, instanceNotLive, transitionRefused } from "../errors.js";
import {
  type BenchmarkClaimCheck,
  checkBenchmarkClaim,
  claimEventDetail,
} from "../evidence/benchmark-claim.js";
import { implausibleProduction } from "../evidence/counted-rate.js";
import { performanceOf } from "../evidence/performance-row.js";
import { describeKeepMinimum, keepMinimumProofsPerHour } from "../keep-rule.js";
import { type VettingState, vettingStates } from "../lifecycle.js";
import { modelledDeadlineInputs } from "../modelled-durations.js";
import type { AgentInstructions, ReportAnswer } from "../protocol/answers.js";
import type {
  FailureBody,
  FinalReportBody,
  LogsBody,
  PhaseBody,
  RegisterBody,
  ThroughputBody,
} from "../protocol/requests.js";
import type { InstanceRecord } from "../store/records.js";
import type { ManagerContext } from "./context.js";
import { beginDestroy, failAndDestroy } from "./destroyer.js";
import { recordInstanceEvidence } from "./evidence.js";
import { reviewInstanceProduction } from "./production-review.js";

const previousPhase: Record<Exclude<VettingState, "registered">, VettingState> = {
  params: "registered",
  warmup: "params",
  benchmarking: "warmup",
};

/** Bounds of one log shipment the manager accepts (default: logTailDefaults'). */
export interface LogShipmentBounds {
  /** Lines. Default logTailDefaults.maxShipLines (400). */
  maxLines?: number | undefined;
  /** Characters of one line. Default logTailDefaults.maxLineChars (2000). */
  maxLineChars?: number | undefined;
  /** Bytes (UTF-8) of the lines' text together. Default logTailDefaults.maxShipBytes (48 KiB). */
  maxBytes?: number | undefined;
}

/**
 * Checks a log shipment against the manager's bounds: a claim from a stranger's machine is
 * refused whole (FleetLogTailTooLargeError, nothing kept) when it has too many lines, a line too
 * long or too many bytes.
 */
export function checkLogShipment(id: string, body: LogsBody, bounds: LogShipmentBounds = {}): void {
  const maxLines = bounds.maxLines ?? logTailDefaults.maxShipLines;
  const maxLineChars = bounds.maxLineChars ?? logTailDefaults.maxLineChars;
  const maxBytes = bounds.maxBytes ?? logTailDefaults.maxShipBytes;
  if (body.lines.length > maxLines) {
    throw new FleetLogTailTooLargeError(
      `the log shipment has ${body.lines.length} lines, more than ${maxLines}`,
      {
        bound: "lines",
        instanceId: id,
      },
    );
  }
  let bytes = 0;
  for (const line of body.lines) {
    if (line.text.length > maxLineChars) {
      throw new FleetLogTailTooLargeError(
        `a line of the log shipment has ${line.text.length} characters, more than ${maxLineChars}`,
        { bound: "line", instanceId: id },
      );
    }
    bytes += Buffer.byteLength(line.text, "utf8");
  }
  if (bytes > maxBytes) {
    throw new FleetLogTailTooLargeError(
      `the log shipment has ${bytes} bytes of text, more than ${maxBytes}`,
      {
        bound: "bytes",
        instanceId: id,
      },
    );
  }
}

/** The agent's endpoints as plain functions; the HTTP layer authenticates and validates first. */
// shape-exception: the agent routes' handlers share the manager context; each is a method of the set
export function agentHandlers(ctx: ManagerContext) {
  const { store, config } = ctx;
  return {
    /** booting -> registered; answers the agent's instructions. */
    async register(id: string, body: RegisterBody): Promise<AgentInstructions> {
      const registered = await store.transition(id, "booting", "registered", {
        eventType: "registered",
        detail: { agentVersion: body.agentVersion, hardware: body.hardware },
      });
      ctx.checkpoint("agent:registered");
      return {
        instanceId: id,
        // The machine's own floor: with a price ceiling it depends on what this machine costs.
        minProofsPerHour: keepMinimumProofsPerHour(config, registered.offer.dphTotal),
        benchmarkProofs: config.benchmarkProofs,
        heartbeatIntervalMs: config.heartbeatIntervalMs,
        dialect: config.dialect,
        curioNodeName: curioNodeNameOf(registered),
      };
    },
    /** The next vetting phase began; a report for a phase already passed is refused. */
    async phase(id: string, body: PhaseBody): Promise<InstanceRecord> {
      const record = await store.transition(id, previousPhase[body.phase], body.phase, {
        // Kept as a choice of objects: the store writes every key present (undefined as NULL),
        // so a phase report without a config must not carry the key and clear the saved one.
        changes: body.tunedConfig === undefined ? {} : { tunedConfig: body.tunedConfig },
        eventType: "phase",
        detail: body.detail === undefined ? undefined : { detail: body.detail },
      });
      ctx.checkpoint(`agent:phase-${body.phase}`);
      return record;
    },
    /** A heartbeat; refused when the instance is not live (the agent should stop). */
    async heartbeat(id: string): Promise<void> {
      if (!(await store.heartbeat(id))) throw instanceNotLive(id, (await store.get(id))?.state);
    },
    /**
     * Lines of the agent's log tail: checked against the bounds (checkLogShipment), redacted again
     * here (the manager's own secrets: `secrets`, and the secret-named variables it gives every
     * machine), and kept as the instance's newest logTailDefaults.storeKeepLines lines. Accepted in
     * any state: a failing machine ships its tail as it fails. Answers how many lines were kept.
     */
    async logs(id: string, body: LogsBody, secrets: readonly string[] = []): Promise<number> {
      checkLogShipment(id, body);
      await store.require(id);
      const known = [...secrets, ...secretsFromEnv(config.env ?? {})];
      const lines = body.lines.map((line) => ({
        stream: line.stream,
        at: line.at,
        text: redactSecrets(line.text, known),
      }));
      await store.appendLogLines(id, lines);
      return lines.length;
    },
    /** A step failed on the machine: failed with its class, destroyed at once. */
    async failure(id: string, body: FailureBody): Promise<InstanceRecord> {
      const reason = `${body.phase} failed: ${body.errorClass} (${body.code}): ${body.message}`;
      const record = await failAndDestroy(
        ctx,
        id,
        ["booting", ...vettingStates, "active"],
        reason,
        "agent-failure",
        { phase: body.phase, errorClass: body.errorClass, code: body.code },
      );
      if (record === undefined) {
        throw transitionRefused(id, [...vettingStates, "active"], "failed", (await store.get(id))?.state);
      }
      return record;
    },
    /**
     * Production throughput of an active machine: checked for plausibility (the model bound),
     * kept as host performance, and the machine's counted rate reviewed. An
     * implausible report is an event, not evidence.
     */
    async throughput(id: string, body: ThroughputBody): Promise<void> {
      const record = await store.require(id);
      if (record.state !== "active") throw instanceNotLive(id, record.state);
      const proofsPerHour = (body.proofs * 3_600_000) / body.windowMs;
      const implausible = implausibleProduction({
        proofsPerHour,
        modelProofsPerHour: record.modelProofsPerHour,
        benchmarkProofsPerHour: record.benchmarkProofsPerHour,
        suspectFactor: config.suspectFactor,
      });
      if (implausible !== undefined) {
        await store.appendEvent(id, "production-implausible", {
          reason: `production report not counted: ${implausible}`,
          proofs: body.proofs,
          windowMs: body.windowMs,
          proofsPerHour,
        });
        return;
      }
      await store.performance.record(
        performanceOf(record, config.dialect, {
          kind: "production",
          proofsPerHour,
          windowMs: body.windowMs,
          config: record.tunedConfig,
        }),
      );
      // With a Curio link, Curio's verified proofs are production; the agent's own are kept as a figure.
      if (ctx.curio === undefined) await reviewInstanceProduction(ctx, id);
    },
    /**
     * The final benchmark report. Its claim is checked against its own proof records and the
     * model (checkBenchmarkClaim), then the keep rule decides on the rate the records support;
     * a refused claim, a rejected or a failed machine is destroyed.
     */
    // shape-exception: the keep decision, claim check and evidence of one report commit in one transaction
    async report(id: string, body: FinalReportBody): Promise<ReportAnswer> {
      const record = await store.require(id);
      const keepMinimum = keepMinimumProofsPerHour(config, record.offer.dphTotal);
      const modelled = modelledDeadlineInputs(record.offer, {
        dialect: config.dialect,
      }).modelledProofsPerHour;
      const stated = body.summary?.concurrency;
      const check = checkBenchmarkClaim({
        claimedProofsPerHour: body.proofsPerHour,
        proofs: body.proofs,
        modelProofsPerHour: modelled > 0 ? modelled : undefined,
        minTimedProofs: config.minTimedProofs,
        statedConcurrency: typeof stated === "number" && stated >= 1 ? stated : undefined,
        suspectFactor: config.suspectFactor,
        contradictionFactor: config.contradictionFactor,
      });
      // Only a MET or BELOW report claims a rate; UNSTABLE and FAILED are decided by their verdict
      // (their rate, recomputed or 0, is only recorded).
      const measuring = body.verdict === "MET" || body.verdict === "BELOW";
      const refused = measuring && check.outcome === "refused";
      const decision: Decision = refused
        ? { to: "rejected", destroy: true, excludeMachine: false, reason: `rejected: ${check.reason}` }
        : claimDecision(
            decideBenchmark(
              body.verdict,
              check.judgedProofsPerHour,
              keepMinimum,
              describeKeepMinimum(config, record.offer.dphTotal),
            ),
            measuring ? check : undefined,
          );
      const kept = decision.to === "active";
      const counted = kept ? check.countedProofsPerHour : refused ? undefined : check.judgedProofsPerHour;
      const detail = claimEventDetail(check);
      const decided = await store.decideBenchmark(
        id,
        {
          verdict: body.verdict,
          // The rate the records support, never the bare claim (the claim is in the report).
          proofsPerHour: check.judgedProofsPerHour,
          minProofsPerHour: keepMinimum,
          machineId: record.machineId,
          gpuName: record.offer.gpuName,
          numGpus: record.offer.numGpus,
          report: {
            proofs: body.proofs,
            summary: body.summary ?? {},
            tunedConfig: body.tunedConfig,
            claimedProofsPerHour: detail.claimedProofsPerHour,
            claim: detail,
          },
        },
        decision.to,
        decision.reason,
        // The measurement outlives the instance: ranking and calibration learn from it. A refused
        // claim measured nothing, so it is no evidence about the machine beyond its event; a
        // suspect one teaches them the model's rate until production says more.
        refused
          ? undefined
          : performanceOf(record, config.dialect, {
              kind: "benchmark",
              verdict: body.verdict,
              proofsPerHour:
                check.outcome === "suspect" ? check.countedProofsPerHour : check.judgedProofsPerHour,
              config: body.tunedConfig ?? record.tunedConfig,
              records: body.proofs,
            }),
        {
          changes: {
            proofsPerHour: counted,
            claimedProofsPerHour: Number.isFinite(body.proofsPerHour) ? body.proofsPerHour : undefined,
            benchmarkProofsPerHour: refused ? undefined : check.judgedProofsPerHour,
            modelProofsPerHour: check.modelProofsPerHour,
            rateBasis: kept && check.outcome === "suspect" ? "probation" : "benchmark",
          },
          events:
            !measuring || check.outcome === "accepted" ? [] : [{ type: `claim-${check.outcome}`, detail }],
        },
      );
      ctx.checkpoint("agent:decided");
      // UNSTABLE is evidence that excludes (for the exclusion period); FAILED counts as a failure,
      // and so does a report that contradicts itself (a lie is the host's doing).
      if (refused && check.contradicted) {
        await recordInstanceEvidence(ctx, record, "failure", decision.reason);
      } else if (decision.excludeMachine || decision.to === "failed") {
        await recordInstanceEvidence(
          ctx,
          record,
          decision.excludeMachine ? "unstable" : "failure",
          decision.reason,
        );
      }
      if (decision.destroy) {
        await beginDestroy(ctx, id, [decided.state]);
      }
      return { state: decision.to, keep: kept, reason: decision.reason };
    },
  };
}

/** The keep rule's decision with what the claim check found said in its reason. */
function claimDecision(decision: Decision, check: BenchmarkClaimCheck | undefined): Decision {
  if (check === undefined || check.outcome === "accepted") return decision;
  return { ...decision, reason: `${decision.reason}; ${check.reason}` };
}

/** The handler set's type. */
export type AgentHandlers = ReturnType<typeof agentHandlers>;

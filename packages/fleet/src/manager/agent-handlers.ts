import type { DaemonDialect } from "@cuzkit/core";
import { decideBenchmark } from "../decision.js";
import { hardwareClassKey } from "../economics/hardware-class.js";
import { instanceNotLive, transitionRefused } from "../errors.js";
import { type InstanceState, type VettingState, vettingStates } from "../lifecycle.js";
import { modelledDeadlineInputs } from "../modelled-durations.js";
import type { HostPerformanceInput } from "../store/host-performance.js";
import type { InstanceRecord } from "../store/records.js";
import type {
  FailureBody,
  FinalReportBody,
  PhaseBody,
  RegisterBody,
  ThroughputBody,
} from "./agent-schemas.js";
import type { ManagerContext } from "./context.js";
import { beginDestroy, failAndDestroy } from "./destroyer.js";
import { recordInstanceEvidence } from "./evidence.js";

/** What the manager tells a registered agent. */
export interface AgentInstructions {
  instanceId: string;
  minProofsPerHour: number;
  benchmarkProofs: number;
  heartbeatIntervalMs: number;
  dialect: string;
}

/** What the manager answers a final report: whether to serve, and why. */
export interface ReportAnswer {
  state: InstanceState;
  keep: boolean;
  reason: string;
}

const previousPhase: Record<Exclude<VettingState, "registered">, VettingState> = {
  params: "registered",
  warmup: "params",
  benchmarking: "warmup",
};

/** The agent's endpoints as plain functions; the HTTP layer authenticates and validates first. */
export function agentHandlers(ctx: ManagerContext) {
  const { store, config } = ctx;
  return {
    /** booting -> registered; answers the agent's instructions. */
    async register(id: string, body: RegisterBody): Promise<AgentInstructions> {
      await store.transition(id, "booting", "registered", {
        eventType: "registered",
        detail: { agentVersion: body.agentVersion, hardware: body.hardware },
      });
      ctx.checkpoint("agent:registered");
      return {
        instanceId: id,
        minProofsPerHour: config.minProofsPerHour,
        benchmarkProofs: config.benchmarkProofs,
        heartbeatIntervalMs: config.heartbeatIntervalMs,
        dialect: config.dialect,
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
    /** Production throughput of an active machine: kept as host performance. */
    async throughput(id: string, body: ThroughputBody): Promise<void> {
      const record = await store.require(id);
      if (record.state !== "active") throw instanceNotLive(id, record.state);
      await store.performance.record(
        performanceOf(record, config.dialect, {
          kind: "production",
          proofsPerHour: (body.proofs * 3_600_000) / body.windowMs,
          windowMs: body.windowMs,
          config: record.tunedConfig,
        }),
      );
    },
    /** The final benchmark report: the keep rule decides; a rejected or failed machine is destroyed. */
    async report(id: string, body: FinalReportBody): Promise<ReportAnswer> {
      const record = await store.require(id);
      const decision = decideBenchmark(body.verdict, body.proofsPerHour, config.minProofsPerHour);
      const decided = await store.decideBenchmark(
        id,
        {
          verdict: body.verdict,
          proofsPerHour: body.proofsPerHour,
          minProofsPerHour: config.minProofsPerHour,
          machineId: record.machineId,
          gpuName: record.offer.gpuName,
          numGpus: record.offer.numGpus,
          report: { proofs: body.proofs, summary: body.summary ?? {}, tunedConfig: body.tunedConfig },
        },
        decision.to,
        decision.reason,
        // The measurement outlives the instance: ranking and calibration learn from it.
        performanceOf(record, config.dialect, {
          kind: "benchmark",
          verdict: body.verdict,
          proofsPerHour: body.proofsPerHour,
          config: body.tunedConfig ?? record.tunedConfig,
          records: body.proofs,
        }),
      );
      ctx.checkpoint("agent:decided");
      // UNSTABLE is evidence that excludes (for the exclusion period); FAILED counts as a failure.
      if (decision.excludeMachine || decision.to === "failed") {
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
      return { state: decision.to, keep: decision.to === "active", reason: decision.reason };
    },
  };
}

/** The handler set's type. */
export type AgentHandlers = ReturnType<typeof agentHandlers>;

/** A host-performance row for an instance: its offer's hardware, price and the model's prediction. */
export function performanceOf(
  record: InstanceRecord,
  dialect: DaemonDialect,
  measured: Pick<HostPerformanceInput, "kind" | "proofsPerHour"> & Partial<HostPerformanceInput>,
): HostPerformanceInput {
  const offer = record.offer;
  const modelled = modelledDeadlineInputs(offer, { dialect });
  return {
    instanceId: record.id,
    verdict: undefined,
    predictedProofsPerHour: modelled.modelledProofsPerHour > 0 ? modelled.modelledProofsPerHour : undefined,
    dphPerHour: record.dphPerHour,
    offerId: record.offerId,
    machineId: record.machineId,
    hostId: offer.hostId,
    gpuName: offer.gpuName,
    numGpus: offer.numGpus,
    cpuRamBytes: offer.cpuRamBytes,
    cpuCores: offer.cpuCores,
    cpuName: offer.cpuName,
    classKey: hardwareClassKey(offer),
    windowMs: undefined,
    config: undefined,
    records: undefined,
    ...measured,
  };
}

import { type Decision, decideBenchmark } from "../decision.js";
import {
  type BenchmarkClaimCheck,
  checkBenchmarkClaim,
  claimEventDetail,
} from "../evidence/benchmark-claim.js";
import { performanceOf } from "../evidence/performance-row.js";
import { describeKeepMinimum, keepMinimumProofsPerHour } from "../keep-rule.js";
import { modelledDeadlineInputs } from "../modelled-durations.js";
import type { ReportAnswer } from "../protocol/answers.js";
import type { FinalReportBody } from "../protocol/requests.js";
import type { InstanceRecord } from "../store/records.js";
import type { ManagerContext } from "./context.js";
import { beginDestroy } from "./destroyer.js";
import { recordInstanceEvidence } from "./evidence.js";

/** What the manager made of a final report, before anything is written. */
interface JudgedReport {
  /** The machine's keep floor, proofs/hour. */
  keepMinimum: number;
  /** The claim checked against its own proof records and the model. */
  check: BenchmarkClaimCheck;
  /** Whether the verdict claims a rate (MET or BELOW); UNSTABLE and FAILED are decided by their verdict. */
  measuring: boolean;
  /** Whether the claim was refused (a measuring report only). */
  refused: boolean;
  /** The keep rule's decision (or the refusal's). */
  decision: Decision;
}

/**
 * The final benchmark report. Its claim is checked against its own proof records and the
 * model (checkBenchmarkClaim), then the keep rule decides on the rate the records support;
 * a refused claim, a rejected or a failed machine is destroyed.
 */
export async function receiveReport(
  ctx: ManagerContext,
  id: string,
  body: FinalReportBody,
): Promise<ReportAnswer> {
  const record = await ctx.store.require(id);
  const judged = judgeReport(ctx, record, body);
  // The keep decision, claim check and evidence of one report commit in one transaction.
  const decided = await storeDecision(ctx, record, body, judged);
  ctx.checkpoint("agent:decided");
  await recordReportEvidence(ctx, record, judged);
  const { decision } = judged;
  if (decision.destroy) {
    await beginDestroy(ctx, id, [decided.state]);
  }
  return { state: decision.to, keep: decision.to === "active", reason: decision.reason };
}

/** Checks the report's claim and decides keep, reject or fail. */
function judgeReport(ctx: ManagerContext, record: InstanceRecord, body: FinalReportBody): JudgedReport {
  const { config } = ctx;
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
  return { keepMinimum, check, measuring, refused, decision };
}

/** Writes the decision, the report, its performance row and the claim's event in one transaction. */
function storeDecision(
  ctx: ManagerContext,
  record: InstanceRecord,
  body: FinalReportBody,
  { keepMinimum, check, measuring, refused, decision }: JudgedReport,
): Promise<InstanceRecord> {
  const { config } = ctx;
  const kept = decision.to === "active";
  const counted = kept ? check.countedProofsPerHour : refused ? undefined : check.judgedProofsPerHour;
  const detail = claimEventDetail(check);
  return ctx.store.decideBenchmark(
    record.id,
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
          proofsPerHour: check.outcome === "suspect" ? check.countedProofsPerHour : check.judgedProofsPerHour,
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
      events: !measuring || check.outcome === "accepted" ? [] : [{ type: `claim-${check.outcome}`, detail }],
    },
  );
}

/**
 * The machine's evidence: UNSTABLE is evidence that excludes (for the exclusion period); FAILED
 * counts as a failure, and so does a report that contradicts itself (a lie is the host's doing).
 */
async function recordReportEvidence(
  ctx: ManagerContext,
  record: InstanceRecord,
  { check, refused, decision }: JudgedReport,
): Promise<void> {
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
}

/** The keep rule's decision with what the claim check found said in its reason. */
function claimDecision(decision: Decision, check: BenchmarkClaimCheck | undefined): Decision {
  if (check === undefined || check.outcome === "accepted") return decision;
  return { ...decision, reason: `${decision.reason}; ${check.reason}` };
}

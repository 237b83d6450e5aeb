import { instanceNotLive } from "../errors.js";
import { implausibleProduction } from "../evidence/counted-rate.js";
import { performanceOf } from "../evidence/performance-row.js";
import type { ThroughputBody } from "../protocol/requests.js";
import type { ManagerContext } from "./context.js";
import { reviewInstanceProduction } from "./production-review.js";

/**
 * Production throughput of an active machine: checked for plausibility (the model bound),
 * kept as host performance, and the machine's counted rate reviewed. An
 * implausible report is an event, not evidence.
 */
export async function receiveThroughput(
  ctx: ManagerContext,
  id: string,
  body: ThroughputBody,
): Promise<void> {
  const { store, config } = ctx;
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
}

import { randomBytes } from "node:crypto";
import { toCuzkitError } from "@cuzkit/core";
import { offerHardware, VastCreateUncertainError, type VastOffer } from "@cuzkit/vast";
import { derivePhaseDeadlines } from "../deadlines.js";
import { rentalPricing } from "../economics/interruptible.js";
import {
  FleetBudgetError,
  FleetConfigError,
  FleetOfferRefusedError,
  FleetTransitionError,
} from "../errors.js";
import { mayBeBilling } from "../lifecycle.js";
import { modelledDeadlineInputs } from "../modelled-durations.js";
import { agentEnvNames } from "../protocol/env-names.js";
import type { InstanceRecord, OfferSnapshot } from "../store/records.js";
import { generateAgentToken, hashAgentToken } from "../tokens.js";
import { instanceLabel } from "./config.js";
import type { ManagerContext } from "./context.js";
import { beginDestroy } from "./destroyer.js";
import { exclusionPolicyOf, recordInstanceEvidence } from "./evidence.js";
import { requireRentingManagerUrl } from "./manager-url.js";

// Defined with the agent, so the agent's entry point loads none of the manager.
export { agentEnvNames } from "../protocol/env-names.js";

/** Options of one deploy. */
export interface DeployOptions {
  /** An instance this one replaces: refused until that one is confirmed destroyed. */
  replaces?: string | undefined;
}

/** What the store keeps of an offer. */
export function snapshotOffer(
  offer: VastOffer,
  /** The fleet's interruptibleBidFactor: rent at a bid where the offer has one. Default: on-demand. */
  bidFactor?: number | undefined,
): OfferSnapshot {
  const pricing = rentalPricing(offer, bidFactor);
  return {
    offerId: offer.id,
    machineId: offer.machineId,
    hostId: offer.hostId,
    cpuName: offer.cpuName,
    gpuName: offer.gpuName,
    numGpus: offer.numGpus,
    gpuRamBytes: offer.gpuRamBytes,
    cpuRamBytes: offer.cpuRamBytes,
    cpuCores: offer.cpuCores,
    dphTotal: pricing.dphTotal,
    bidPricePerHour: pricing.bidPricePerHour,
    onDemandDphTotal: pricing.bidPricePerHour === undefined ? undefined : offer.dphTotal,
    inetDownMbps: offer.inetDownMbps,
    geolocation: offer.geolocation,
    hardware: offerHardware(offer),
  };
}

/** A fresh instance id: `i-` and 8 hex digits. */
export function newInstanceId(): string {
  return `i-${randomBytes(4).toString("hex")}`;
}

/** Throws FleetBudgetError when renting `offer` next to `instances` would pass --max-instances or --max-dph. */
export function checkBudget(
  ctx: ManagerContext,
  offer: OfferSnapshot,
  instances: readonly InstanceRecord[],
): void {
  const billing = instances.filter((r) => mayBeBilling(r.state));
  const { maxInstances, maxDph } = ctx.config;
  if (maxInstances !== undefined && billing.length + 1 > maxInstances) {
    throw new FleetBudgetError(
      `renting offer ${offer.offerId} would make ${billing.length + 1} instances, above --max-instances ${maxInstances}`,
      {
        hint: "raise --max-instances, or destroy an instance first (cuzkit fleet destroy ID); instances still being destroyed count",
      },
    );
  }
  const dph = billing.reduce((sum, r) => sum + r.dphPerHour, 0);
  if (maxDph !== undefined && dph + offer.dphTotal > maxDph + 1e-9) {
    throw new FleetBudgetError(
      `renting offer ${offer.offerId} at $${offer.dphTotal.toFixed(3)}/h would make $${(dph + offer.dphTotal).toFixed(3)}/h, above --max-dph ${maxDph}`,
      { hint: "raise --max-dph, pick a cheaper offer, or destroy an instance first" },
    );
  }
}

/**
 * Plans and rents one offer. The row exists (planned, then renting) before the create is
 * sent, and the create is never sent twice for one row: after an ambiguous failure the
 * instance stays `renting` until the Vast client's label look-up or the reconcile pass finds
 * it, or its deadline passes.
 */
export async function deployOffer(
  ctx: ManagerContext,
  offer: VastOffer,
  options: DeployOptions = {},
): Promise<InstanceRecord> {
  const { store, config } = ctx;
  if (config.image === undefined) {
    throw new FleetConfigError("deploy needs the prover image", { hint: "pass --image IMAGE" });
  }
  requireRentingManagerUrl(config);
  const exclusion =
    offer.machineId === undefined
      ? undefined
      : await store.machineExclusion(offer.machineId, exclusionPolicyOf(ctx));
  if (exclusion !== undefined) {
    const until =
      exclusion.until === undefined ? "until lifted" : `until ${new Date(exclusion.until).toISOString()}`;
    throw new FleetOfferRefusedError(
      `offer ${offer.id} is on machine ${offer.machineId}, excluded ${until}: ${exclusion.reason}`,
      {
        hint: `pick another offer (cuzkit vast offers), use --best N, which skips excluded machines, or lift it: cuzkit fleet hosts --lift ${offer.machineId}`,
      },
    );
  }
  if (options.replaces !== undefined) {
    const old = await store.require(options.replaces);
    if (old.state !== "destroyed") {
      throw new FleetOfferRefusedError(
        `instance ${old.id} is ${old.state}: its replacement waits until it is confirmed destroyed`,
        {
          hint: `wait for cuzkit fleet status to show ${old.id} destroyed, or run cuzkit fleet destroy ${old.id}`,
        },
      );
    }
  }
  const snapshot = snapshotOffer(offer, config.interruptibleBidFactor);
  const modelled = modelledDeadlineInputs(snapshot, {
    benchmarkProofs: config.benchmarkProofs,
    dialect: config.dialect,
    imageBytes: config.imageBytes,
    paramsBytes: config.paramsBytes,
  });
  if (!modelled.feasible) {
    throw new FleetOfferRefusedError(
      `offer ${offer.id} (${offer.numGpus}x ${offer.gpuName}, ${(offer.cpuRamBytes / 2 ** 30).toFixed(0)} GiB) has no safe daemon config`,
      { hint: "pick an offer with more RAM (cuzkit tune --ram ... shows what a machine needs)" },
    );
  }
  const deadlinesMs = derivePhaseDeadlines(modelled, config.deadlines);
  const id = newInstanceId();
  const token = generateAgentToken();
  // The budget check and the insert are one transaction that excludes other writers: two
  // deploys at once (or two replicas) cannot both pass the cap.
  await store.plan(
    {
      id,
      fleet: config.fleet,
      label: instanceLabel(config.fleet, id),
      offer: snapshot,
      deadlinesMs,
      tokenHash: hashAgentToken(token),
    },
    { guard: (instances) => checkBudget(ctx, snapshot, instances) },
  );
  ctx.checkpoint("deploy:planned");
  return rent(ctx, id, token);
}

/** Sends the create for a planned instance. */
async function rent(ctx: ManagerContext, id: string, token: string): Promise<InstanceRecord> {
  const { store, vast, config, logger } = ctx;
  // Before the create: a loopback or missing URL would rent a machine whose agent reaches no one.
  const managerUrl = requireRentingManagerUrl(config);
  const record = await store.transition(id, "planned", "renting");
  ctx.checkpoint("deploy:renting");
  try {
    const created = await vast.createInstance(record.offerId, {
      image: config.image as string,
      env: {
        ...config.env,
        [agentEnvNames.url]: managerUrl,
        [agentEnvNames.token]: token,
        [agentEnvNames.instanceId]: id,
      },
      diskGb: config.diskGb,
      label: record.label,
      runtype: "args",
      args: config.args,
      // A bid makes the rental interruptible; without it Vast rents on-demand.
      bidPricePerHour: record.offer.bidPricePerHour,
    });
    ctx.checkpoint("deploy:created");
    const booting = await store.tryTransition(id, "renting", "booting", {
      changes: { vastId: created.instanceId },
      detail: { vastId: created.instanceId, recoveredByLabel: created.recoveredByLabel },
    });
    ctx.checkpoint("deploy:booting");
    logger.info("fleet instance rented", {
      instanceId: id,
      vastId: created.instanceId,
      offerId: record.offerId,
    });
    if (booting !== undefined) return booting;
    const now = await store.require(id);
    if (now.vastId === undefined) {
      // The create answered after the row gave up on it (its renting deadline passed): the
      // rental has no live row, so it goes at once rather than after reconcile's grace period.
      await store.appendEvent(id, "late-create", { vastId: created.instanceId, state: now.state });
      await vast.destroyInstance(created.instanceId).catch((error: unknown) => {
        logger.warn("fleet could not destroy a late rental; reconcile retries", {
          vastId: created.instanceId,
          code: toCuzkitError(error).code,
        });
      });
    }
    // Otherwise the reconcile pass found it by label meanwhile: it is booting (or further) already.
    return now;
  } catch (error) {
    if (error instanceof VastCreateUncertainError) {
      logger.warn("fleet create uncertain; the reconcile pass looks for its label", {
        instanceId: id,
        label: record.label,
      });
      await store.appendEvent(id, "create-uncertain", { label: record.label, message: error.message });
      return await store.require(id);
    }
    if (error instanceof FleetTransitionError) throw error;
    const failure = toCuzkitError(error);
    // A definite refusal (offer gone, credit, auth): nothing is billed.
    const refused = await store.transition(id, "renting", "failed", {
      changes: { reason: `rent refused: ${failure.code}: ${failure.message}` },
      eventType: "rent-refused",
      detail: { code: failure.code },
    });
    await recordInstanceEvidence(ctx, refused, "vast-error", `rent refused: ${failure.code}`);
    await beginDestroy(ctx, id, ["failed"]);
    throw failure;
  }
}

/**
 * Rents the instances a crashed manager had planned but not yet sent: a new token (the old
 * one was never handed out), then the create. Instances already `renting` are left to the
 * reconcile pass: their create may have been sent, so it is never sent again.
 */
export async function resumePlanned(ctx: ManagerContext): Promise<InstanceRecord[]> {
  const resumed: InstanceRecord[] = [];
  for (const record of await ctx.store.list(["planned"])) {
    const token = generateAgentToken();
    await ctx.store.update(record.id, "planned", { tokenHash: hashAgentToken(token) }, "token-reissued");
    ctx.checkpoint("resume:token");
    try {
      resumed.push(await rent(ctx, record.id, token));
    } catch (error) {
      ctx.logger.warn("fleet could not rent a planned instance", {
        instanceId: record.id,
        code: toCuzkitError(error).code,
      });
    }
  }
  return resumed;
}

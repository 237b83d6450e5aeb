// What `cuzkit vast rent` does once its flags are parsed: check them, print the request (--dry-run)
// or rent after confirmation, wait for the instance with --wait, and print the rental.
import { InvalidInputError } from "@cuzkit/core";
import {
  buildCreateInstanceRequest,
  type CreatedInstance,
  type CreateInstanceOptions,
  redactCreateBody,
  type VastClient,
  type VastInstance,
  VastOfferGoneError,
  type VastRuntype,
} from "@cuzkit/vast";
import type { Command } from "commander";
import { colourEnabled } from "../../colour.js";
import { parsePositiveNumber, parseWholeNumber } from "../../parse.js";
import type { VastContext } from "./context.js";
import { instancesTable, offerSummary } from "./format.js";
import { type RentFlags, runtypeNote } from "./rent.js";

/** With --wait: polls until the instance runs, printing its states; on failure destroys it (--destroy-on-failure) or says it still bills. */
async function waitUntilRunning(
  ctx: VastContext,
  client: VastClient,
  created: CreatedInstance,
  opts: RentFlags,
  waitMs: number,
): Promise<VastInstance> {
  ctx.io.stderr.write(`rented instance ${created.instanceId}; waiting for it to run\n`);
  let last = "";
  const interrupt = ctx.interrupt(); // Ctrl-C during the wait is a failure too
  try {
    return await client.waitForStatus(created.instanceId, "running", {
      signal: interrupt.signal,
      timeoutMs: waitMs,
      onPoll: (polled) => {
        const state = `${polled.actualStatus ?? "provisioning"}${polled.statusMsg ? ` (${polled.statusMsg})` : ""}`;
        if (state !== last) ctx.io.stderr.write(`  ${state}\n`);
        last = state;
      },
    });
  } catch (error) {
    if (!opts.destroyOnFailure) {
      ctx.io.stderr.write(
        `instance ${created.instanceId} is still rented and billing: destroy it with \`cuzkit vast destroy ${created.instanceId}\`, or pass --destroy-on-failure next time\n`,
      );
      throw error;
    }
    const reason = error instanceof Error ? error.message : String(error);
    ctx.io.stderr.write(`instance ${created.instanceId} did not run (${reason}); destroying it\n`);
    await client.destroyInstance(created.instanceId);
    ctx.io.stderr.write(`destroyed instance ${created.instanceId}; nothing is billing\n`);
    throw error;
  } finally {
    interrupt.dispose();
  }
}

/** Prints the rental (and the running instance, after --wait), as text or JSON. */
function printRented(
  ctx: VastContext,
  opts: RentFlags,
  created: CreatedInstance,
  instance: VastInstance | undefined,
) {
  const summary = {
    instanceId: created.instanceId,
    label: created.label,
    offerId: created.offerId,
    interruptible: created.interruptible,
    recoveredByLabel: created.recoveredByLabel,
  };
  if (opts.json) {
    ctx.printJson(instance === undefined ? summary : { ...summary, instance });
    return;
  }
  ctx.print(
    `rented instance ${created.instanceId} (label ${created.label}, ${created.interruptible ? "interruptible" : "on-demand"})` +
      (created.recoveredByLabel ? "; found by label after an unclear answer" : ""),
  );
  if (instance) ctx.print(instancesTable([instance], colourEnabled(ctx.io.stdout, ctx.io.env)));
}

/** `cuzkit vast rent`'s action: checks, the dry run or the confirmed create, the optional wait, the output. */
export async function runRent(
  ctx: VastContext,
  offerIdText: string,
  opts: RentFlags,
  command: Command,
): Promise<void> {
  const offerId = parseWholeNumber(offerIdText, { what: "offer id", example: "1001" });
  if (opts.destroyOnFailure && !opts.wait) {
    throw new InvalidInputError("--destroy-on-failure needs --wait", {
      hint: "add --wait (and --wait-minutes)",
    });
  }
  const waitMs = parsePositiveNumber(opts.waitMinutes, { what: "--wait-minutes", example: "30" }) * 60_000;
  const create = createOptionsFromFlags(opts, ctx.io.env);
  const request = buildCreateInstanceRequest(offerId, create);
  create.label = request.label; // the dry run, the prompt and the create use the same label
  if (opts.dryRun) {
    ctx.printJson({
      method: request.method,
      url: `${ctx.baseUrl(command)}${request.path}`,
      body: redactCreateBody(request.body),
    });
    return;
  }
  if (opts.runtype === undefined && opts.args === undefined) ctx.io.stderr.write(`note: ${runtypeNote}\n`);
  const client = await ctx.client(command);
  const interruptible = create.bidPricePerHour !== undefined;
  const offer = await client.getOffer(offerId, { allowRented: interruptible });
  if (offer === undefined) {
    throw new VastOfferGoneError(
      `offer ${offerId} cannot be rented now (rented, withdrawn or a mistyped id)`,
      {
        endpoint: "POST /api/v0/bundles/",
      },
    );
  }
  const mode = interruptible ? `INTERRUPTIBLE at a bid of $${create.bidPricePerHour}/h` : "ON-DEMAND";
  await ctx.confirmOrRefuse(
    `Rent offer ${offerId}: ${offerSummary(offer)}.\n  ${mode}, image ${create.image}, ${request.body.disk} GB disk, runtype ${request.body.runtype}, label ${request.label}.\nBilling starts now. [y/N] `,
    opts.yes,
    "rent",
  );
  const created = await client.createInstance(offerId, create);
  const instance = opts.wait ? await waitUntilRunning(ctx, client, created, opts, waitMs) : undefined;
  printRented(ctx, opts, created, instance);
}

function createOptionsFromFlags(
  opts: RentFlags,
  env: Record<string, string | undefined>,
): CreateInstanceOptions {
  const envVars: Record<string, string> = {};
  for (const pair of opts.env) {
    const eq = pair.indexOf("=");
    if (eq <= 0)
      throw new InvalidInputError(`--env "${pair}" is not KEY=VALUE`, {
        hint: "such as --env CUZK_LOG=info",
      });
    envVars[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  const create: CreateInstanceOptions = {
    image: opts.image,
    env: envVars,
    ports: opts.port,
    diskGb: parsePositiveNumber(opts.disk, { what: "--disk", example: "50" }),
  };
  if (opts.onstart !== undefined) create.onstart = opts.onstart;
  if (opts.runtype !== undefined) create.runtype = opts.runtype as VastRuntype;
  if (opts.args !== undefined) create.args = opts.args;
  if (opts.label !== undefined) create.label = opts.label;
  if (opts.bid !== undefined)
    create.bidPricePerHour = parsePositiveNumber(opts.bid, { what: "--bid", example: "0.5" });
  if (opts.cancelUnavailable) create.cancelUnavailable = true;
  if (opts.imageLoginEnv !== undefined) {
    const login = env[opts.imageLoginEnv];
    if (!login) {
      throw new InvalidInputError(`environment variable ${opts.imageLoginEnv} is not set`, {
        hint: 'export it, such as "-u USER -p TOKEN ghcr.io"',
      });
    }
    create.imageLogin = login;
  }
  return create;
}

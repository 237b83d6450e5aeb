import type { FleetRunStep } from "@cuzkit/fleet";
import { fleetDefaults } from "@cuzkit/fleet/defaults";
import type { Command } from "commander";
import { durationOption, durationText, positiveNumberOption, wholeNumberOption } from "../../parse.js";
import { type FleetContext, fleetLib } from "./context.js";
import { addConfigOptions, addReplicaOptions, addStoreOptions, type ConfigFlags } from "./flags.js";
import { defaultListen, givenAlertWebhook, type ReplicaFlags, replicaSetup, serveManager } from "./serve.js";

interface RunFlags extends ConfigFlags, ReplicaFlags {
  targetProofsPerHour?: number;
  targetInstances?: number;
  every?: number;
  once?: boolean;
  listen: string;
}

/** `cuzkit fleet run`: keeps the fleet at a target by the ranking, logging every decision with its reason. */
export function addRunCommand(fleet: Command, ctx: FleetContext): void {
  addReplicaOptions(addConfigOptions(addStoreOptions(fleet.command("run"))))
    .description(
      "keep the fleet at a target: rent the best-ranked offers, keep what pays, replace what dies, destroy the dearest per proof when over",
    )
    .option(
      "--target-proofs-per-hour <n>",
      "the total measured proofs/hour to keep",
      positiveNumberOption("--target-proofs-per-hour"),
    )
    .option(
      "--target-instances <n>",
      "the number of kept machines to keep",
      wholeNumberOption("--target-instances", 1),
    )
    .option(
      "--every <duration>",
      `time between steps (default ${durationText(fleetDefaults.runEveryMs)})`,
      durationOption("--every"),
    )
    .option(
      "--once",
      "run one step and exit; it holds the store's writer lease meanwhile, so it refuses while a `fleet serve` or `fleet run` manages the fleet",
    )
    .option(
      "--listen <host:port>",
      "where agents reach the manager (0.0.0.0:PORT to expose it)",
      defaultListen,
    )
    .addHelpText(
      "after",
      `
Each step ranks the offers as \`fleet offers\` does and decides: under target, rent the
best-ranked (at most 2 vetting at once, within --max-dph); over target with measured capacity,
destroy the active machine with the highest measured $ per 1000 proofs while the rest still meet
the target; at target, try one offer whose optimistic cost beats the dearest kept machine's
measured cost by 25%, and let the over-target rule drop the dearer one if it measures well.`,
    )
    .action(async (flags: RunFlags) => {
      const { runFleetStep, startFleetRun, checkFleetTarget } = await fleetLib();
      const target = { proofsPerHour: flags.targetProofsPerHour, instances: flags.targetInstances };
      checkFleetTarget(target);
      const webhookUrl = await givenAlertWebhook(ctx, flags);
      await ctx.withStore(flags, async (store, keep) => {
        const print = (step: FleetRunStep) => {
          for (const d of step.decisions) {
            const what = d.action === "rent" ? `rent offer ${d.offerId}` : `destroy ${d.instanceId}`;
            const skipped = step.skipped.find((x) => x.decision === d);
            ctx.print(`${what}: ${d.reason}${skipped ? ` (not done: ${skipped.code})` : ""}`);
          }
        };
        if (flags.once) {
          // One step, as the fleet's one writer for its length: refused while a manager runs.
          await ctx.withLease(flags, store, async (fenced) => {
            await ctx.checkRentingManagerUrl(flags, fenced);
            keep(); // from here on it may rent: the store keeps the record whatever follows
            print(await runFleetStep(await ctx.managerFor(flags, fenced), { target }));
          });
          return;
        }
        // Without --once, run is the manager too: the agents it rents report to this process.
        const { dashboard, lease, fenced } = await replicaSetup(ctx, flags, store);
        const manager = await ctx.managerFor(flags, fenced);
        await serveManager(ctx, manager, fenced, {
          listen: flags.listen,
          dashboard,
          lease,
          onStarted: keep,
          // This process rents: refuse to start unless agents can reach it at the URL it hands them.
          rentingUrl: { given: flags.managerUrl, required: true },
          alerts: webhookUrl === undefined ? undefined : { webhookUrl, target },
          whileLeading: ({ alerts }) =>
            startFleetRun(manager, {
              target,
              intervalMs: flags.every,
              onStep: (step) => {
                print(step);
                void alerts?.check(step);
              },
              onError: (error) => ctx.logger.warn("fleet run step failed", { error: String(error) }),
            }),
        });
      });
    });
}

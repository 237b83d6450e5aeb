import type {
  BacklogFollower,
  BacklogStep,
  CurioBacklogSource,
  FleetRunStep,
  FleetStore,
  FleetTarget,
  FollowBacklogOptions,
} from "@cuzkit/fleet";
import { backlogDefaults, fleetDefaults } from "@cuzkit/fleet/defaults";
import type { Command } from "commander";
import { durationOption, durationText, positiveNumberOption, wholeNumberOption } from "../../parse.js";
import { backlogFlagsOf, type FollowBacklogFlags } from "./backlog-flags.js";
import { type FleetContext, fleetLib } from "./context.js";
import { addConfigOptions, addReplicaOptions, addStoreOptions, type ConfigFlags } from "./flags.js";
import { defaultListen, givenAlertWebhook, type ReplicaFlags, replicaSetup, serveManager } from "./serve.js";

interface RunFlags extends ConfigFlags, ReplicaFlags, FollowBacklogFlags {
  targetProofsPerHour?: number;
  targetInstances?: number;
  every?: number;
  once?: boolean;
  listen: string;
}

/** The fixed target: proofs/hour or machines to keep (instead of --follow-backlog). */
function addTargetOptions(command: Command): Command {
  return command
    .option(
      "--target-proofs-per-hour <n>",
      "the total measured proofs/hour to keep",
      positiveNumberOption("--target-proofs-per-hour"),
    )
    .option(
      "--target-instances <n>",
      "the number of kept machines to keep",
      wholeNumberOption("--target-instances", 1),
    );
}

/** --follow-backlog and its policy: the target set from the Curio cluster's backlog. */
function addBacklogOptions(command: Command): Command {
  return command
    .option(
      "--follow-backlog",
      "set the target from the Curio cluster's backlog (needs --curio-db): scale up when its unclaimed proving tasks would take longer than --backlog-bound to clear, down after --idle-window of quiet; instead of --target-*",
    )
    .option(
      "--min-instances <n>",
      `with --follow-backlog: the fewest machines kept (default ${backlogDefaults.minInstances})`,
      wholeNumberOption("--min-instances", 1),
    )
    .option(
      "--backlog-bound <duration>",
      `with --follow-backlog: scale up when the backlog would take longer than this to clear (default --proof-deadline less --prove-timeout, ${durationText(backlogDefaults.clearBoundMs)})`,
      durationOption("--backlog-bound"),
    )
    .option(
      "--idle-window <duration>",
      `with --follow-backlog: how long the backlog stays under half the bound before the fleet scales down (default ${durationText(backlogDefaults.idleWindowMs)})`,
      durationOption("--idle-window"),
    )
    .option(
      "--proof-deadline <duration>",
      `with --follow-backlog: the snark market's deadline of one proof from its posting (default ${durationText(backlogDefaults.proofDeadlineMs)})`,
      durationOption("--proof-deadline"),
    )
    .option(
      "--prove-timeout <duration>",
      `with --follow-backlog: Curio's cuzk ProveTimeout, the longest a claimed proof may take (default ${durationText(backlogDefaults.proveTimeoutMs)})`,
      durationOption("--prove-timeout"),
    );
}

/** How often it steps, once only, and where its agents reach it. */
function addLoopOptions(command: Command): Command {
  return command
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
    );
}

/** What `fleet run --help` says after the options: how a step decides, and how the backlog sets the target. */
const runHelpText = `
Each step ranks the offers as \`fleet offers\` does and decides: under target, rent the
best-ranked (at most 2 vetting at once, within --max-dph); over target with measured capacity,
destroy the active machine with the highest measured $ per 1000 proofs while the rest still meet
the target; at target, try one offer whose optimistic cost beats the dearest kept machine's
measured cost by 25%, and let the over-target rule drop the dearer one if it measures well.

With --follow-backlog the target (machines) comes from Curio's unclaimed PoRep, UpdateProve and
PSProve tasks in harmony_task: up at once when they would take longer than --backlog-bound to
clear at the fleet's measured rate (or the oldest would be claimed after its slack: --proof-deadline
less --prove-timeout less its age), down to what is needed after --idle-window with the backlog
under half the bound (the dearest per proof is cordoned, drained and destroyed), within
--min-instances..--max-instances (default ${backlogDefaults.maxInstances} with --follow-backlog). Every move is a fleet-backlog event with its figures; an
unreadable HarmonyDB keeps the target.`;

/** `cuzkit fleet run`: keeps the fleet at a target by the ranking, logging every decision with its reason. */
export function addRunCommand(fleet: Command, ctx: FleetContext): void {
  const command = addReplicaOptions(addConfigOptions(addStoreOptions(fleet.command("run")))).description(
    "keep the fleet at a target: rent the best-ranked offers, keep what pays, replace what dies, destroy the dearest per proof when over",
  );
  addLoopOptions(addBacklogOptions(addTargetOptions(command)))
    .addHelpText("after", runHelpText)
    .action((flags: RunFlags) => runFleetRun(ctx, flags));
}

type FleetLib = Awaited<ReturnType<typeof fleetLib>>;

/** What `fleet run` settles before the store opens: the target or the backlog to follow, and the alerts. */
interface RunPlan {
  lib: FleetLib;
  /** The --target-* flags (both undefined when following the backlog). */
  target: FleetTarget;
  /** Curio's backlog and the policy, with --follow-backlog. */
  followBacklog: FollowBacklogOptions | undefined;
  /** The opened backlog source, closed when the command ends. */
  source: CurioBacklogSource | undefined;
  webhookUrl: string | undefined;
}

/** Checks the flags and opens the backlog source: refused before the store is opened. */
async function planRun(ctx: FleetContext, flags: RunFlags): Promise<RunPlan> {
  const lib = await fleetLib();
  const target = { proofsPerHour: flags.targetProofsPerHour, instances: flags.targetInstances };
  // Refused before anything is opened: a missing --curio-db, or a target as well as the backlog.
  const backlog = backlogFlagsOf(flags, ctx.io.env);
  if (backlog === undefined) lib.checkFleetTarget(target);
  else lib.resolveBacklogPolicy(backlog.policy);
  const webhookUrl = await givenAlertWebhook(ctx, flags);
  const source =
    backlog === undefined
      ? undefined
      : lib.openCurioBacklogSource({ url: backlog.curioDb, schema: flags.curioSchema });
  const followBacklog =
    source === undefined || backlog === undefined ? undefined : { source, ...backlog.policy };
  return { lib, target, followBacklog, source, webhookUrl };
}

/** A backlog step: a kept target always, a decision when it moves the target (or `always`). */
function printBacklogStep(ctx: FleetContext, step: BacklogStep, always: boolean): void {
  if (step.kind === "kept")
    ctx.print(`backlog: target kept at ${step.target} (${step.code}: ${step.message})`);
  else if (always || step.decision.action !== "hold") ctx.print(`backlog: ${step.decision.text}`);
}

/** A fleet step: each rent or destroy with its reason, and why it was not done when skipped. */
function printRunStep(ctx: FleetContext, step: FleetRunStep): void {
  for (const d of step.decisions) {
    const what = d.action === "rent" ? `rent offer ${d.offerId}` : `destroy ${d.instanceId}`;
    const skipped = step.skipped.find((x) => x.decision === d);
    ctx.print(`${what}: ${d.reason}${skipped ? ` (not done: ${skipped.code})` : ""}`);
  }
}

/** --once: one step, as the fleet's one writer for its length: refused while a manager runs. */
async function runOneStep(
  ctx: FleetContext,
  flags: RunFlags,
  plan: RunPlan,
  store: FleetStore,
  keep: () => void,
): Promise<void> {
  const { lib, followBacklog } = plan;
  await ctx.withLease(flags, store, async (fenced) => {
    await ctx.checkRentingManagerUrl(flags, fenced);
    keep(); // from here on it may rent: the store keeps the record whatever follows
    const manager = await ctx.managerFor(flags, fenced);
    let stepTarget = plan.target;
    if (followBacklog !== undefined) {
      const follower = lib.followerOf(manager, undefined, followBacklog) as BacklogFollower;
      const next = await follower.next(await lib.fleetMembers(manager));
      printBacklogStep(ctx, next.step, true);
      stepTarget = { proofsPerHour: undefined, instances: next.target };
    }
    printRunStep(ctx, await lib.runFleetStep(manager, { target: stepTarget }));
  });
}

/** Without --once, run is the manager too: the agents it rents report to this process. */
async function runAsManager(
  ctx: FleetContext,
  flags: RunFlags,
  plan: RunPlan,
  store: FleetStore,
  keep: () => void,
): Promise<void> {
  const { lib, followBacklog, webhookUrl } = plan;
  // Below-target alerts and the steps need a fixed target; following the backlog, the target moves.
  const target = followBacklog === undefined ? plan.target : undefined;
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
      lib.startFleetRun(manager, {
        target,
        followBacklog,
        intervalMs: flags.every,
        onBacklog: (step) => printBacklogStep(ctx, step, false),
        onStep: (step) => {
          printRunStep(ctx, step);
          void alerts?.check(step);
        },
        onError: (error) => ctx.logger.warn("fleet run step failed", { error: String(error) }),
      }),
  });
}

/** `fleet run`'s action: plan, then one step or the managing loop on the store; the backlog source closed at the end. */
async function runFleetRun(ctx: FleetContext, flags: RunFlags): Promise<void> {
  const plan = await planRun(ctx, flags);
  try {
    await ctx.withStore(flags, (store, keep) =>
      flags.once ? runOneStep(ctx, flags, plan, store, keep) : runAsManager(ctx, flags, plan, store, keep),
    );
  } finally {
    await plan.source?.close();
  }
}

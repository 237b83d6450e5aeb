import { type Command, Option } from "commander";
import { vastHelpDefaults } from "../../help-defaults.js";
import type { VastContext } from "./context.js";
import { collectValues } from "./flags.js";

/** The flags of `cuzkit vast rent`, as commander parses them. */
export interface RentFlags {
  image: string;
  env: string[];
  port: string[];
  onstart?: string;
  runtype?: string;
  args?: string[];
  disk: string;
  label?: string;
  bid?: string;
  imageLoginEnv?: string;
  cancelUnavailable?: boolean;
  dryRun?: boolean;
  wait?: boolean;
  waitMinutes: string;
  destroyOnFailure?: boolean;
  yes?: boolean;
  json?: boolean;
}

/** Why --args matters: what the default runtype does to the image's ENTRYPOINT. */
export const runtypeNote =
  "runtype ssh (the default without --args) replaces the image's ENTRYPOINT with Vast's SSH init, so a prover " +
  "image's own ENTRYPOINT does not run; pass --args (or --runtype args) to keep it";

/** `cuzkit vast rent`: rent an offer, optionally wait for it, and destroy it if that fails. */
export function addRentCommand(vast: Command, ctx: VastContext): void {
  vast
    .command("rent")
    .description("rent an offer and start an image on it (shows the offer and asks first unless --yes)")
    .argument("<offerId>", "offer id from `cuzkit vast offers`")
    .requiredOption("--image <image>", "Docker image to run")
    .option("--env <KEY=VALUE>", "environment variable (repeatable)", collectValues, [] as string[])
    .option(
      "--port <port>",
      'port to open, such as 9820 or "9000/udp" (repeatable)',
      collectValues,
      [] as string[],
    )
    .option(
      "--onstart <script>",
      "script run at start (entrypoint override in args mode), at most 4048 characters",
    )
    .addOption(
      new Option(
        "--runtype <runtype>",
        "how the container starts (default: args with --args, else ssh, which does NOT run the image's ENTRYPOINT)",
      ).choices(["ssh", "ssh_proxy", "ssh_direct", "jupyter", "jupyter_proxy", "jupyter_direct", "args"]),
    )
    .option(
      "--args <args...>",
      "arguments replacing the image CMD; keeps the image ENTRYPOINT (put this flag last)",
    )
    .option("--disk <gb>", "disk size in GB, fixed for the instance's life", String(vastHelpDefaults.diskGb))
    .option("--label <label>", "unique label (default: cuzkit-<random>)")
    .option("--bid <usd>", "bid in $/hour: an interruptible rental (without it you rent on-demand)")
    .option(
      "--image-login-env <var>",
      "name of an environment variable holding the registry login (-u USER -p TOKEN HOST)",
    )
    .option("--cancel-unavailable", "fail instead of queueing when the offer cannot start now")
    .option("--dry-run", "print the request (without secrets) and rent nothing")
    .option("--wait", "wait until the instance is running")
    .option(
      "--wait-minutes <minutes>",
      "how long --wait waits",
      String(vastHelpDefaults.waitTimeoutMs / 60_000),
    )
    .option(
      "--destroy-on-failure",
      "with --wait: destroy the instance when it fails or does not run in time, so nothing keeps billing",
    )
    .option("-y, --yes", "do not ask for confirmation")
    .option("--json", "print JSON")
    .addHelpText("after", `\nNote: ${runtypeNote}.`)
    // The Vast client and the request builder load only when the command runs.
    .action(async (offerIdText: string, opts: RentFlags, command: Command) =>
      (await import("./rent-run.js")).runRent(ctx, offerIdText, opts, command),
    );
}

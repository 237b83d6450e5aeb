import type { Command } from "commander";
import { vastHelpDefaults } from "../../help-defaults.js";
import { parsePositiveNumber, parseWholeNumber } from "../../parse.js";
import { type VastContext, vastLib } from "./context.js";

interface LogsFlags {
  tail: string;
  filter?: string;
  daemon?: boolean;
  timeout: string;
}

/** `cuzkit vast logs`: an instance's container (or Vast daemon) logs. */
export function addLogsCommand(vast: Command, ctx: VastContext): void {
  vast
    .command("logs")
    .description("print an instance's logs")
    .argument("<id>", "instance id")
    .option("--tail <lines>", "last lines", String(vastHelpDefaults.logTail))
    .option("--filter <pattern>", "grep pattern applied by the server")
    .option("--daemon", "Vast's daemon logs instead of the container's")
    .option(
      "--timeout <seconds>",
      "how long to wait for the logs to be ready",
      String(vastHelpDefaults.logPollTimeoutMs / 1000),
    )
    .action(async (idText: string, opts: LogsFlags, command: Command) => {
      const id = parseWholeNumber(idText, { what: "instance id", example: "1001" });
      try {
        const client = await ctx.client(command);
        const text = await client.getLogs(id, {
          tail: parseWholeNumber(opts.tail, { what: "--tail", example: "200" }),
          pollTimeoutMs: parsePositiveNumber(opts.timeout, { what: "--timeout", example: "60" }) * 1000,
          filter: opts.filter,
          daemonLogs: opts.daemon,
        });
        ctx.io.stdout.write(text);
      } catch (error) {
        const { VastNotFoundError } = await vastLib();
        if (!(error instanceof VastNotFoundError)) throw error;
        // The API says "failed with 200: Instance not found" here; say what it means.
        throw new VastNotFoundError(
          `no instance ${id} on this account: it was destroyed, or the id is mistyped`,
          {
            endpoint: error.endpoint,
            status: error.status,
            hint: "a destroyed instance's logs are gone with it; list yours with `cuzkit vast instances`",
            cause: error,
          },
        );
      }
    });
}

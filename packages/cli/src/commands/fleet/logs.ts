import { InvalidInputError } from "@cuzkit/core";
import type { Command } from "commander";
import { wholeNumberOption } from "../../parse.js";
import type { FleetContext } from "./context.js";
import { addStoreOptions, type StoreFlags } from "./flags.js";

interface LogsFlags extends StoreFlags {
  json?: boolean;
  stream?: string;
  lines?: number;
}

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");

/**
 * `cuzkit fleet logs ID`: the log tail the instance's agent shipped (on a failure, at each phase,
 * on request), oldest first: the daemon's output and the agent's own lines, secrets redacted.
 */
export function addLogsCommand(fleet: Command, ctx: FleetContext): void {
  addStoreOptions(fleet.command("logs"))
    .description(
      "the last lines of an instance's daemon and agent, as its agent shipped them (on a failure, at each phase, on request), secrets redacted",
    )
    .argument("<id>", "the instance id, as cuzkit fleet status shows it")
    .option("--json", "print JSON")
    .option("--stream <name>", "only one stream: daemon or agent")
    .option(
      "--lines <n>",
      "only the newest N lines (default: all the store keeps, 500)",
      wholeNumberOption("--lines", 1, "--lines 50"),
    )
    .action(async (id: string, flags: LogsFlags) =>
      ctx.withStore(
        flags,
        async (store) => {
          const { redactSecrets, secretsFromEnv } = await import("@cuzkit/fleet/agent");
          if (flags.stream !== undefined && flags.stream !== "daemon" && flags.stream !== "agent") {
            throw new InvalidInputError(`--stream "${flags.stream}" is not daemon or agent`, {
              hint: "pass --stream daemon (the daemon's output) or --stream agent (the agent's own lines)",
            });
          }
          const record = await store.require(id);
          // Stored redacted; again here with this shell's own secrets, in case it knows more.
          const secrets = secretsFromEnv(ctx.io.env);
          const lines = (await store.logTail(record.id, flags.lines))
            .filter((line) => flags.stream === undefined || line.stream === flags.stream)
            .map((line) => ({ ...line, text: redactSecrets(line.text, secrets) }));
          if (flags.json) {
            ctx.print(
              JSON.stringify(
                {
                  instanceId: record.id,
                  state: record.state,
                  lines: lines.map((l) => ({
                    stream: l.stream,
                    at: l.at,
                    receivedAt: l.receivedAt,
                    text: l.text,
                  })),
                },
                null,
                2,
              ),
            );
            return;
          }
          if (lines.length === 0) {
            ctx.print(
              `no log lines from ${record.id} (${record.state}): its agent ships them on a failure, at each phase, and when the dashboard asks`,
            );
            return;
          }
          for (const line of lines) ctx.print(`${iso(line.at)} ${line.stream.padEnd(6)} ${line.text}`);
        },
        "read",
      ),
    );
}

import type { Command } from "commander";
import { parseWholeNumber } from "../../parse.js";
import type { VastContext } from "./context.js";
import { existingInstance } from "./existing.js";

/** `cuzkit vast show`: one instance. */
export function addShowCommand(vast: Command, ctx: VastContext): void {
  vast
    .command("show")
    .description("show one instance")
    .argument("<id>", "instance id")
    .option("--json", "print JSON")
    .action(async (idText: string, opts: { json?: boolean }, command: Command) => {
      const instance = await existingInstance(
        await ctx.client(command),
        parseWholeNumber(idText, { what: "instance id", example: "1001" }),
      );
      if (opts.json) ctx.printJson(instance);
      else ctx.print((await import("./format.js")).instanceDetails(instance));
    });
}

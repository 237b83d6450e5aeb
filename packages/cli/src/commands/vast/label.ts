import type { Command } from "commander";
import { parseWholeNumber } from "../../parse.js";
import type { VastContext } from "./context.js";

/** `cuzkit vast label`: set an instance's label. */
export function addLabelCommand(vast: Command, ctx: VastContext): void {
  vast
    .command("label")
    .description("set an instance's label")
    .argument("<id>", "instance id")
    .argument("<label>", "new label")
    .action(async (idText: string, label: string, _opts: unknown, command: Command) => {
      const id = parseWholeNumber(idText, { what: "instance id", example: "1001" });
      const client = await ctx.client(command);
      await client.labelInstance(id, label);
      ctx.print(`labelled instance ${id} "${label}"`);
    });
}

import type { Command } from "commander";
import type { VastContext } from "./context.js";
import { positiveInteger } from "./flags.js";

/** `cuzkit vast label`: set an instance's label. */
export function addLabelCommand(vast: Command, ctx: VastContext): void {
  vast
    .command("label")
    .description("set an instance's label")
    .argument("<id>", "instance id")
    .argument("<label>", "new label")
    .action(async (idText: string, label: string, _opts: unknown, command: Command) => {
      const id = positiveInteger(idText, "instance id");
      await ctx.client(command).labelInstance(id, label);
      ctx.print(`labelled instance ${id} "${label}"`);
    });
}

import type { VastInstance } from "@cuzkit/vast";
import type { Command } from "commander";
import { colourEnabled } from "../../colour.js";
import type { VastContext } from "./context.js";

/** `cuzkit vast instances`: your instances, optionally by label. */
export function addInstancesCommand(vast: Command, ctx: VastContext): void {
  vast
    .command("instances")
    .description("list your instances")
    .option("--label <label>", "only instances with this label")
    .option("--json", "print JSON instead of a table")
    .action(async (opts: { label?: string; json?: boolean }, command: Command) => {
      const instances: VastInstance[] = [];
      const client = await ctx.client(command);
      for await (const instance of client.listInstances({ label: opts.label })) {
        instances.push(instance);
      }
      if (opts.json) ctx.printJson(instances);
      else if (instances.length === 0) ctx.print("no instances");
      else {
        const { instancesTable } = await import("./format.js");
        ctx.print(instancesTable(instances, colourEnabled(ctx.io.stdout, ctx.io.env)));
      }
    });
}

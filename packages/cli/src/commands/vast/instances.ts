import type { VastInstance } from "@cuzkit/vast";
import type { Command } from "commander";
import { colourEnabled } from "../../colour.js";
import type { VastContext } from "./context.js";
import { instancesTable } from "./format.js";

/** `cuzkit vast instances`: your instances, optionally by label. */
export function addInstancesCommand(vast: Command, ctx: VastContext): void {
  vast
    .command("instances")
    .description("list your instances")
    .option("--label <label>", "only instances with this label")
    .option("--json", "print JSON instead of a table")
    .action(async (opts: { label?: string; json?: boolean }, command: Command) => {
      const instances: VastInstance[] = [];
      for await (const instance of ctx.client(command).listInstances({ label: opts.label })) {
        instances.push(instance);
      }
      if (opts.json) ctx.printJson(instances);
      else
        ctx.print(
          instances.length === 0
            ? "no instances"
            : instancesTable(instances, colourEnabled(ctx.io.stdout, ctx.io.env)),
        );
    });
}

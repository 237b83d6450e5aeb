import type { Command } from "commander";
import type { VastContext } from "./context.js";
import { addInstanceAction } from "./power.js";

/** `cuzkit vast stop`: stop an instance (its disk still bills). */
export function addStopCommand(vast: Command, ctx: VastContext): void {
  addInstanceAction(vast, ctx, {
    name: "stop",
    description: "stop an instance; its disk is still billed (only destroy ends billing)",
    act: (client, id) => client.stopInstance(id),
    done: (id) =>
      `stopped instance ${id} (its disk is still billed; \`cuzkit vast destroy ${id}\` ends billing)`,
  });
}

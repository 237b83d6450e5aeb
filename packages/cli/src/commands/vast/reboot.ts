import type { Command } from "commander";
import type { VastContext } from "./context.js";
import { addInstanceAction } from "./power.js";

/** `cuzkit vast reboot`: restart an instance's container. */
export function addRebootCommand(vast: Command, ctx: VastContext): void {
  addInstanceAction(vast, ctx, {
    name: "reboot",
    description: "reboot an instance's container (keeps its disk and GPUs)",
    act: (client, id) => client.rebootInstance(id),
    done: (id) => `rebooting instance ${id}`,
  });
}

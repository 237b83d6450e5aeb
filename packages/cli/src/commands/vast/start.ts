import type { Command } from "commander";
import type { VastContext } from "./context.js";
import { addInstanceAction } from "./power.js";

/** `cuzkit vast start`: start a stopped instance. */
export function addStartCommand(vast: Command, ctx: VastContext): void {
  addInstanceAction(vast, ctx, {
    name: "start",
    description: "start a stopped instance (it may wait if its GPUs were rented meanwhile)",
    act: (client, id) => client.startInstance(id),
    done: (id) => `starting instance ${id} (follow it with \`cuzkit vast show ${id}\`)`,
  });
}

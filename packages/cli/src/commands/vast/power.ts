import type { VastClient } from "@cuzkit/vast";
import type { Command } from "commander";
import { parseWholeNumber } from "../../parse.js";
import type { VastContext } from "./context.js";
import { existingInstance } from "./existing.js";

/** One of the instance actions `start`, `stop` and `reboot` share: look the instance up, act, say so. */
export function addInstanceAction(
  vast: Command,
  ctx: VastContext,
  spec: {
    name: string;
    description: string;
    act: (client: VastClient, id: number) => Promise<void>;
    done: (id: number) => string;
  },
): void {
  vast
    .command(spec.name)
    .description(spec.description)
    .argument("<id>", "instance id")
    .action(async (idText: string, _opts: unknown, command: Command) => {
      const id = parseWholeNumber(idText, { what: "instance id", example: "1001" });
      const client = await ctx.client(command);
      await existingInstance(client, id);
      await spec.act(client, id);
      ctx.print(spec.done(id));
    });
}

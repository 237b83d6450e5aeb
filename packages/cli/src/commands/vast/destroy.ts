import type { VastInstance } from "@cuzkit/vast";
import type { Command } from "commander";
import type { VastContext } from "./context.js";
import { existingInstance } from "./existing.js";
import { instanceIds } from "./flags.js";

interface DestroyFlags {
  yes?: boolean;
  missingOk?: boolean;
  json?: boolean;
}

/** `cuzkit vast destroy`: end billing; a missing id is an error unless --missing-ok. */
export function addDestroyCommand(vast: Command, ctx: VastContext): void {
  vast
    .command("destroy")
    .description("destroy instances, ending all billing and deleting their disks (asks first unless --yes)")
    .argument("<ids...>", "instance ids")
    .option("--missing-ok", "an id that is not on the account is not an error (for cleanup scripts)")
    .option("-y, --yes", "do not ask for confirmation")
    .option("--json", "print JSON")
    .action(async (idTexts: string[], opts: DestroyFlags, command: Command) => {
      const ids = instanceIds(idTexts);
      const client = await ctx.client(command);
      // Look each one up first: a mistyped id must not pass for "already destroyed".
      const found: VastInstance[] = [];
      const missing: number[] = [];
      for (const id of ids) {
        if (opts.missingOk) {
          const instance = await client.showInstance(id);
          if (instance === null) missing.push(id);
          else found.push(instance);
        } else found.push(await existingInstance(client, id));
      }
      const results: { instanceId: number; alreadyGone: boolean }[] = missing.map((id) => ({
        instanceId: id,
        alreadyGone: true,
      }));
      if (found.length > 0) {
        const { instanceSummary } = await import("./format.js");
        await ctx.confirmOrRefuse(
          `Destroy ${found.map(instanceSummary).join(", ")}? Their disks are deleted. [y/N] `,
          opts.yes,
          "destroy",
        );
        for (const instance of found) {
          results.push({ instanceId: instance.id, ...(await client.destroyInstance(instance.id)) });
        }
      }
      if (opts.json) ctx.printJson(results);
      else {
        for (const r of results) {
          ctx.print(
            r.alreadyGone
              ? `instance ${r.instanceId} is not on the account (nothing to destroy)`
              : `destroyed instance ${r.instanceId}`,
          );
        }
      }
    });
}

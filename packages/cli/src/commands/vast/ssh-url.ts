import { InvalidInputError } from "@cuzkit/core";
import type { Command } from "commander";
import { parseWholeNumber } from "../../parse.js";
import { type VastContext, vastLib } from "./context.js";
import { existingInstance } from "./existing.js";

/** `cuzkit vast ssh-url`: where to SSH into an instance. */
export function addSshUrlCommand(vast: Command, ctx: VastContext): void {
  vast
    .command("ssh-url")
    .description("print an instance's SSH URL (direct when port 22 is mapped, else Vast's proxy)")
    .argument("<id>", "instance id")
    .option("--json", "print JSON (url, command, host, port, kind)")
    .action(async (idText: string, opts: { json?: boolean }, command: Command) => {
      const id = parseWholeNumber(idText, { what: "instance id", example: "1001" });
      const instance = await existingInstance(await ctx.client(command), id);
      const { instanceSshEndpoint } = await vastLib();
      const ssh = instanceSshEndpoint(instance);
      if (ssh === undefined) {
        throw new InvalidInputError(
          `instance ${id} has no SSH endpoint${instance.actualStatus === "running" ? "" : ` yet (status ${instance.actualStatus ?? "provisioning"})`}`,
          {
            hint:
              instance.imageRuntype === "args"
                ? "it runs in args mode, which has no SSH; rent with an ssh runtype, or use `cuzkit vast logs`"
                : `wait until it runs (\`cuzkit vast show ${id}\`)`,
          },
        );
      }
      if (opts.json) ctx.printJson(ssh);
      else ctx.print(ssh.url);
    });
}

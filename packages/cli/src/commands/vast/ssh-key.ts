import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { InvalidInputError } from "@cuzkit/core";
import { Command } from "commander";
import { parseWholeNumber } from "../../parse.js";
import { type VastContext, vastLib } from "./context.js";
import { existingInstance } from "./existing.js";

/** `cuzkit vast ssh-key attach|list`: SSH keys of instances and of the account. */
export function addSshKeyCommand(vast: Command, ctx: VastContext): void {
  const sshKey = new Command("ssh-key").description(
    "SSH public keys: attach one to an instance, list the account's",
  );
  sshKey
    .command("attach")
    .description("add an SSH public key to a running instance")
    .argument("<id>", "instance id")
    .argument("<public-key-file>", "the .pub file, such as ~/.ssh/id_ed25519.pub (never the private key)")
    .action(async (idText: string, file: string, _opts: unknown, command: Command) => {
      const id = parseWholeNumber(idText, { what: "instance id", example: "1001" });
      const { checkPublicKey } = await vastLib();
      const key = checkPublicKey(await readPublicKey(file, ctx.io.cwd));
      const client = await ctx.client(command);
      await existingInstance(client, id);
      await client.attachSshKey(id, key);
      ctx.print(`attached ${key.split(/\s+/)[0]} key to instance ${id}`);
    });
  sshKey
    .command("list")
    .description("list the SSH keys registered on the account")
    .option("--json", "print JSON")
    .action(async (opts: { json?: boolean }, command: Command) => {
      const client = await ctx.client(command);
      const keys = await client.listSshKeys();
      if (opts.json) ctx.printJson(keys.map(({ raw: _raw, ...key }) => key));
      else if (keys.length === 0) ctx.print("no SSH keys on the account");
      else
        for (const key of keys)
          ctx.print(`${key.id}  ${key.publicKey.slice(0, 60)}${key.publicKey.length > 60 ? "..." : ""}`);
    });
  vast.addCommand(sshKey);
}

async function readPublicKey(file: string, cwd: string): Promise<string> {
  try {
    return await readFile(resolve(cwd, file), "utf8");
  } catch (error) {
    throw new InvalidInputError(
      `cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`,
      { hint: "give the path of a .pub file, such as ~/.ssh/id_ed25519.pub", cause: error },
    );
  }
}

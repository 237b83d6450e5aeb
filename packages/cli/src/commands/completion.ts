import { InvalidInputError } from "@cuzkit/core";
import { Command } from "commander";
import { bashCompletion } from "../completion/bash.js";
import { completionTree } from "../completion/command-tree.js";
import { fishCompletion } from "../completion/fish.js";
import { zshCompletion } from "../completion/zsh.js";
import type { CliIO } from "../io.js";

const shells = { bash: bashCompletion, zsh: zshCompletion, fish: fishCompletion } as const;

/**
 * `cuzkit completion bash|zsh|fish`: prints the shell's completion script, built from the
 * program's own commands and options (`program` gives the finished tree).
 */
export function createCompletionCommand(io: CliIO, program: () => Command): Command {
  return new Command("completion")
    .description("print the shell completion script for bash, zsh or fish")
    .argument("<shell>", "bash, zsh or fish")
    .addHelpText(
      "after",
      `
Install:
  bash: cuzkit completion bash > ~/.local/share/bash-completion/completions/cuzkit
  zsh:  cuzkit completion zsh > "\${fpath[1]}/_cuzkit"
  fish: cuzkit completion fish > ~/.config/fish/completions/cuzkit.fish
Then open a new shell.`,
    )
    .action((shell: string) => {
      const generate = Object.hasOwn(shells, shell) ? shells[shell as keyof typeof shells] : undefined;
      if (generate === undefined) {
        throw new InvalidInputError(`cuzkit completion: unknown shell "${shell}"`, {
          hint: `pass one of ${Object.keys(shells).join(", ")}: cuzkit completion bash`,
        });
      }
      io.stdout.write(generate(completionTree(program())));
    });
}

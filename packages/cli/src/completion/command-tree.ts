import type { Command, Option } from "commander";

/** One option as a shell completes it. */
export interface CompletionOption {
  /** `--addr`, when the option has a long form. */
  long: string | undefined;
  /** `-y`, when it has a short form. */
  short: string | undefined;
  /** The first line of its help. */
  description: string;
  /** True when the next word is its value (`--addr HOST:PORT`). */
  takesValue: boolean;
  /** The values it accepts, when commander lists them (`.choices`). Empty: any value (files offered). */
  choices: readonly string[];
}

/** One command and what can follow it. */
export interface CompletionNode {
  name: string;
  description: string;
  options: readonly CompletionOption[];
  commands: readonly CompletionNode[];
}

const firstLine = (text: string) => (text.split("\n")[0] ?? "").trim();

function optionOf(option: Option): CompletionOption {
  return {
    long: option.long,
    short: option.short,
    description: firstLine(option.description),
    takesValue: option.required || option.optional,
    choices: option.argChoices ?? [],
  };
}

const helpOption: CompletionOption = {
  long: "--help",
  short: "-h",
  description: "display help for command",
  takesValue: false,
  choices: [],
};

/**
 * The program's commands and options as plain data, read from commander's own tree so the
 * completion scripts cannot drift from the parser. Hidden options are left out.
 */
export function completionTree(command: Command): CompletionNode {
  const options = command.options.filter((o) => !o.hidden).map(optionOf);
  return {
    name: command.name(),
    description: firstLine(command.description()),
    options: [...options, helpOption],
    commands: command.commands.map(completionTree),
  };
}

/** Every node with the words that reach it ("" for the program, "fleet serve" for a subcommand). */
export function nodesByPath(root: CompletionNode): { path: string; node: CompletionNode }[] {
  const out: { path: string; node: CompletionNode }[] = [];
  const walk = (node: CompletionNode, path: string) => {
    out.push({ path, node });
    for (const child of node.commands) walk(child, path === "" ? child.name : `${path} ${child.name}`);
  };
  walk(root, "");
  return out;
}

/** The option's spellings: `--addr`, `-a`. */
export const spellings = (option: CompletionOption) =>
  [option.long, option.short].filter((s): s is string => s !== undefined);

/** The spellings of the node's options that take a value: the words after which the next is a value. */
export const valueFlags = (node: CompletionNode) =>
  node.options.filter((o) => o.takesValue).flatMap(spellings);

import { type CompletionNode, nodesByPath, valueFlags } from "./command-tree.js";

/** A fish single-quoted word. */
const quoted = (text: string) => `'${text.replaceAll("\\", "\\\\").replaceAll("'", "\\'")}'`;

/**
 * The fish completion script: one `complete` line per command and option, conditioned on the
 * command path typed so far (`__cuzkit_at PATH`).
 */
// shape-exception: most of its lines are the shell script's own template, kept whole to read as the shell will
export function fishCompletion(root: CompletionNode): string {
  const nodes = nodesByPath(root);
  const subs = nodes
    .filter(({ node }) => node.commands.length > 0)
    .map(
      ({ path, node }) =>
        `    case ${quoted(path)}\n        printf '%s\\n' ${node.commands.map((c) => quoted(c.name)).join(" ")}`,
    );
  const valued = nodes
    .map(({ path, node }) => ({ path, flags: valueFlags(node) }))
    .filter(({ flags }) => flags.length > 0)
    .map(
      ({ path, flags }) => `    case ${quoted(path)}\n        printf '%s\\n' ${flags.map(quoted).join(" ")}`,
    );
  const lines: string[] = [];
  for (const { path, node } of nodes) {
    const at = `-n ${quoted(`__cuzkit_at ${quoted(path)}`)}`;
    for (const child of node.commands) {
      lines.push(`complete -c cuzkit ${at} -a ${quoted(child.name)} -d ${quoted(child.description)}`);
    }
    for (const option of node.options) {
      const flags = [
        option.long === undefined ? "" : ` -l ${option.long.replace(/^--/, "")}`,
        option.short === undefined ? "" : ` -s ${option.short.replace(/^-/, "")}`,
      ].join("");
      // -x: a value from the choices only; -r: a value, files offered.
      const value =
        option.choices.length > 0
          ? ` -x -a ${quoted(option.choices.join(" "))}`
          : option.takesValue
            ? " -r -F"
            : "";
      lines.push(`complete -c cuzkit ${at}${flags}${value} -d ${quoted(option.description)}`);
    }
  }
  return `# fish completion for cuzkit. Install (then open a new shell):
#   cuzkit completion fish > ~/.config/fish/completions/cuzkit.fish
function __cuzkit_subcommands
    switch $argv[1]
${subs.join("\n")}
    end
end
function __cuzkit_value_options
    switch $argv[1]
${valued.join("\n")}
    end
end
function __cuzkit_path
    set -l words (commandline -opc)
    set -e words[1]
    set -l cmdpath ''
    set -l skip 0
    for word in $words
        if test $skip -eq 1
            set skip 0
            continue
        end
        if string match -q -- '-*' $word
            contains -- $word (__cuzkit_value_options "$cmdpath"); and set skip 1
            continue
        end
        if contains -- $word (__cuzkit_subcommands "$cmdpath")
            if test -z "$cmdpath"
                set cmdpath $word
            else
                set cmdpath "$cmdpath $word"
            end
        end
    end
    echo $cmdpath
end
function __cuzkit_at
    set -l at (__cuzkit_path)
    test "$at" = "$argv[1]"
end
complete -c cuzkit -f
${lines.join("\n")}
`;
}

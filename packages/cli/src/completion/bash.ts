import { type CompletionNode, nodesByPath, spellings, valueFlags } from "./command-tree.js";

const words = (list: readonly string[]) => list.join(" ");

/**
 * The bash completion script. Data (commands, options, which options take a value, their
 * choices) is written out as `case` tables; one function walks the words typed so far.
 */
// shape-exception: most of its lines are the shell script's own template, kept whole to read as the shell will
export function bashCompletion(root: CompletionNode): string {
  const nodes = nodesByPath(root);
  const subs = nodes
    .filter(({ node }) => node.commands.length > 0)
    .map(({ path, node }) => `    "${path}") echo "${words(node.commands.map((c) => c.name))}" ;;`);
  const opts = nodes.map(
    ({ path, node }) => `    "${path}") echo "${words(node.options.flatMap(spellings))}" ;;`,
  );
  const valued = nodes
    .map(({ path, node }) => ({ path, flags: valueFlags(node) }))
    .filter(({ flags }) => flags.length > 0)
    .map(({ path, flags }) => `    "${path}") echo "${words(flags)}" ;;`);
  const choices = nodes.flatMap(({ path, node }) =>
    node.options
      .filter((o) => o.choices.length > 0)
      .flatMap((o) => spellings(o).map((flag) => `    "${path}|${flag}") echo "${words(o.choices)}" ;;`)),
  );
  return `# bash completion for cuzkit. Install (then open a new shell):
#   cuzkit completion bash > ~/.local/share/bash-completion/completions/cuzkit
_cuzkit_subcommands() {
  case "$1" in
${subs.join("\n")}
  esac
}
_cuzkit_options() {
  case "$1" in
${opts.join("\n")}
  esac
}
_cuzkit_value_options() {
  case "$1" in
${valued.join("\n")}
  esac
}
_cuzkit_choices() {
  case "$1" in
${choices.join("\n")}
  esac
}
_cuzkit_has() {
  local item
  for item in $1; do [[ "$item" == "$2" ]] && return 0; done
  return 1
}
_cuzkit() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}"
  local cmdpath="" word i skip=0
  for ((i = 1; i < COMP_CWORD; i++)); do
    word="\${COMP_WORDS[i]}"
    if ((skip)); then skip=0; continue; fi
    if [[ "$word" == -* ]]; then
      _cuzkit_has "$(_cuzkit_value_options "$cmdpath")" "$word" && skip=1
      continue
    fi
    _cuzkit_has "$(_cuzkit_subcommands "$cmdpath")" "$word" && cmdpath="\${cmdpath:+$cmdpath }$word"
  done
  if ((skip)); then
    local values
    values="$(_cuzkit_choices "$cmdpath|$prev")"
    if [[ -n "$values" ]]; then
      mapfile -t COMPREPLY < <(compgen -W "$values" -- "$cur")
    else
      mapfile -t COMPREPLY < <(compgen -f -- "$cur")
    fi
    return 0
  fi
  if [[ "$cur" == -* ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$(_cuzkit_options "$cmdpath")" -- "$cur")
    return 0
  fi
  local subcommands
  subcommands="$(_cuzkit_subcommands "$cmdpath")"
  if [[ -n "$subcommands" ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$subcommands" -- "$cur")
  else
    mapfile -t COMPREPLY < <(compgen -f -- "$cur")
  fi
}
complete -F _cuzkit cuzkit
`;
}

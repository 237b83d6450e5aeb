import { type CompletionNode, nodesByPath, spellings, valueFlags } from "./command-tree.js";

/** A zsh single-quoted word. */
const quoted = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;
/** A `_describe` entry: `name:description`, the name's colons escaped. */
const entry = (name: string, description: string) => quoted(`${name.replaceAll(":", "\\:")}:${description}`);

/**
 * The zsh completion script: commands and options with their descriptions (`_describe`),
 * choices where commander lists them, files for other values.
 */
// shape-exception: most of its lines are the shell script's own template, kept whole to read as the shell will
export function zshCompletion(root: CompletionNode): string {
  const nodes = nodesByPath(root);
  const subs = nodes
    .filter(({ node }) => node.commands.length > 0)
    .map(
      ({ path, node }) =>
        `    ${quoted(path)}) reply=(${node.commands.map((c) => entry(c.name, c.description)).join(" ")}) ;;`,
    );
  const opts = nodes.map(
    ({ path, node }) =>
      `    ${quoted(path)}) reply=(${node.options
        .flatMap((o) => spellings(o).map((flag) => entry(flag, o.description)))
        .join(" ")}) ;;`,
  );
  const valued = nodes
    .map(({ path, node }) => ({ path, flags: valueFlags(node) }))
    .filter(({ flags }) => flags.length > 0)
    .map(({ path, flags }) => `    ${quoted(path)}) reply=(${flags.join(" ")}) ;;`);
  const choices = nodes.flatMap(({ path, node }) =>
    node.options
      .filter((o) => o.choices.length > 0)
      .flatMap((o) =>
        spellings(o).map(
          (flag) => `    ${quoted(`${path}|${flag}`)}) reply=(${o.choices.map(quoted).join(" ")}) ;;`,
        ),
      ),
  );
  return `#compdef cuzkit
# zsh completion for cuzkit. Install (a directory on $fpath, then open a new shell):
#   cuzkit completion zsh > "\${fpath[1]}/_cuzkit"
_cuzkit_subcommands() {
  reply=()
  case "$1" in
${subs.join("\n")}
  esac
}
_cuzkit_options() {
  reply=()
  case "$1" in
${opts.join("\n")}
  esac
}
_cuzkit_value_options() {
  reply=()
  case "$1" in
${valued.join("\n")}
  esac
}
_cuzkit_choices() {
  reply=()
  case "$1" in
${choices.join("\n")}
  esac
}
_cuzkit() {
  local cmdpath="" word skip=0 i
  local -a reply names
  for ((i = 2; i < CURRENT; i++)); do
    word="\${words[i]}"
    if ((skip)); then skip=0; continue; fi
    if [[ "$word" == -* ]]; then
      _cuzkit_value_options "$cmdpath"
      (( \${reply[(Ie)$word]} )) && skip=1
      continue
    fi
    _cuzkit_subcommands "$cmdpath"
    names=("\${reply[@]%%:*}")
    (( \${names[(Ie)$word]} )) && cmdpath="\${cmdpath:+$cmdpath }$word"
  done
  if ((skip)); then
    _cuzkit_choices "$cmdpath|\${words[CURRENT-1]}"
    if (( \${#reply} )); then compadd -- "\${reply[@]}"; else _files; fi
    return
  fi
  if [[ "\${words[CURRENT]}" == -* ]]; then
    _cuzkit_options "$cmdpath"
    _describe -t options option reply
    return
  fi
  _cuzkit_subcommands "$cmdpath"
  if (( \${#reply} )); then _describe -t commands command reply; else _files; fi
}
compdef _cuzkit cuzkit
`;
}

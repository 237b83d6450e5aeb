// Mutate ranges are found by name when the config loads, so they follow the code when it moves
// or a file is edited above them (fixed line numbers went stale with the first refactor).
import { readFileSync } from "node:fs";
import ts from "typescript";

/** The 1-based first and last lines of the first declaration named `name` in `file` (depth first). */
function linesOf(file, name) {
  const text = readFileSync(file, "utf8");
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  let found;
  const visit = (node) => {
    if (found !== undefined) return;
    const named =
      (ts.isFunctionDeclaration(node) || ts.isVariableDeclaration(node)) &&
      node.name?.getText(source) === name;
    if (named) {
      // A variable's whole statement (`const x = ...;`), a function's declaration.
      const whole = ts.isVariableDeclaration(node) ? node.parent.parent : node;
      found = [
        source.getLineAndCharacterOfPosition(whole.getStart(source)).line + 1,
        source.getLineAndCharacterOfPosition(whole.getEnd()).line + 1,
      ];
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  if (found === undefined) throw new Error(`stryker.config.mjs: no declaration named ${name} in ${file}`);
  return found;
}

/** `file:a-b` over the declarations named, from the first one's start to the last one's end. */
export function declared(file, first, last = first) {
  const [from] = linesOf(file, first);
  const [, to] = linesOf(file, last);
  return `${file}:${from}-${to}`;
}

/** `file:n-n` for the first line holding `text`. */
export function lineWith(file, text) {
  const index = readFileSync(file, "utf8")
    .split("\n")
    .findIndex((line) => line.includes(text));
  if (index < 0) throw new Error(`stryker.config.mjs: no line with ${JSON.stringify(text)} in ${file}`);
  return `${file}:${index + 1}-${index + 1}`;
}

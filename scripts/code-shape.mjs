// Long functions and long files in the packages' sources (tests and generated code aside). A
// function over 80 lines, or a file over 400, that stays so on purpose carries the marker
// `// shape-exception: <why>` on the line directly above the function (below its doc comment),
// or as the first line of the file. Shared by scripts/report-shape.mjs and its test.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";

export const root = join(import.meta.dirname, "..");
export const maxFunctionLines = 80;
export const maxFileLines = 400;
const marker = /^\s*\/\/\s*shape-exception:/;

/** The sources the shape rules cover: tracked .ts under proto/src and packages/<name>/src, no tests, no generated code. */
export function shapeSources() {
  return execFileSync("git", ["ls-files", "proto/src", "packages"], { cwd: root, encoding: "utf8" })
    .split("\n")
    .filter(
      (path) =>
        /^(proto|packages\/[^/]+)\/src\/.*\.tsx?$/.test(path) &&
        !/\.test\.tsx?$/.test(path) &&
        !path.includes("/gen/"),
    );
}

function functionName(node) {
  if (node.name !== undefined && ts.isIdentifier(node.name)) return node.name.text;
  if (node.name !== undefined && ts.isPrivateIdentifier(node.name)) return node.name.text;
  if (ts.isConstructorDeclaration(node)) return "constructor";
  const parent = node.parent;
  if (parent !== undefined && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)))
    return ts.isIdentifier(parent.name) ? parent.name.text : "(anonymous)";
  return "(anonymous)";
}

/** The node that may carry the marker instead of the function: the statement that declares it. */
function anchorOf(node) {
  const parent = node.parent;
  if (parent !== undefined && ts.isVariableDeclaration(parent)) return parent.parent?.parent ?? parent;
  if (parent !== undefined && ts.isPropertyAssignment(parent)) return parent;
  // A callback: `app.get("/", async () => { ... });` carries it above the statement.
  if (parent !== undefined && ts.isCallExpression(parent) && ts.isExpressionStatement(parent.parent))
    return parent.parent;
  return node;
}

/**
 * Whether the marker comment sits directly above `node`: on the line above it, or on the line
 * above the doc comment that is directly above it.
 */
function markedAbove(source, node) {
  const text = source.getFullText();
  const comments = ts.getLeadingCommentRanges(text, node.getFullStart()) ?? [];
  const lineOf = (pos) => source.getLineAndCharacterOfPosition(pos).line;
  let line = lineOf(node.getStart(source)) - 1;
  for (let i = comments.length - 1; i >= 0; i--) {
    const comment = comments[i];
    if (lineOf(comment.end) !== line) return false;
    const body = text.slice(comment.pos, comment.end);
    if (marker.test(body)) return true;
    if (!body.startsWith("/**")) return false;
    line = lineOf(comment.pos) - 1;
  }
  return false;
}

/**
 * The functions of `text` (a TypeScript file) longer than maxFunctionLines:
 * [{ name, line (1-based), lines, marked }].
 */
export function longFunctions(text, path = "file.ts") {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.ES2022, true);
  const found = [];
  const visit = (node) => {
    if (
      (ts.isFunctionDeclaration(node) ||
        ts.isFunctionExpression(node) ||
        ts.isArrowFunction(node) ||
        ts.isMethodDeclaration(node) ||
        ts.isConstructorDeclaration(node) ||
        ts.isGetAccessorDeclaration(node) ||
        ts.isSetAccessorDeclaration(node)) &&
      node.body !== undefined
    ) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const count = end - start + 1;
      if (count > maxFunctionLines) {
        found.push({
          name: functionName(node),
          line: start + 1,
          lines: count,
          marked: markedAbove(source, node) || markedAbove(source, anchorOf(node)),
        });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Whether `text` is over maxFileLines: { lines, long, marked }. */
export function fileShape(text) {
  const lines = text.endsWith("\n") ? text.split("\n").length - 1 : text.split("\n").length;
  return { lines, long: lines > maxFileLines, marked: marker.test(text.split("\n")[0] ?? "") };
}

/** Every long function and long file of the covered sources: { functions: [...], files: [...] }. */
export function codeShape() {
  const functions = [];
  const files = [];
  for (const path of shapeSources()) {
    const text = readFileSync(join(root, path), "utf8");
    const file = fileShape(text);
    if (file.long) files.push({ path, lines: file.lines, marked: file.marked });
    for (const fn of longFunctions(text, path)) functions.push({ path, ...fn });
  }
  return { functions, files };
}

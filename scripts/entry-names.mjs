// The names each package entry exports (values and types), read from the TypeScript sources
// with the compiler API, so no build is needed. An entry is a key of a package's `exports` map
// ("./package.json" aside); its source is the built path with dist/ -> src/ and .js -> .ts.
// Shared by test/entry-budgets.test.ts and scripts/report-shape.mjs.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";

export const root = join(import.meta.dirname, "..");

/** The budgets file: the most names each entry may export. */
export const budgetsPath = join(root, "test", "entry-budgets.json");

/** Every entry of every workspace package: { entry, file } (file relative to the root). */
export function packageEntries() {
  const dirs = ["proto", ...readdirSync(join(root, "packages")).map((name) => `packages/${name}`)];
  const entries = [];
  for (const dir of dirs) {
    const manifest = JSON.parse(readFileSync(join(root, dir, "package.json"), "utf8"));
    for (const [key, target] of Object.entries(manifest.exports ?? {})) {
      if (typeof target !== "object" || typeof target.default !== "string") continue;
      const file = `${dir}/${target.default.replace(/^\.\/dist\//, "src/").replace(/\.js$/, ".ts")}`;
      entries.push({ entry: key === "." ? manifest.name : `${manifest.name}${key.slice(1)}`, file });
    }
  }
  return entries;
}

/**
 * Each entry with the sorted names it exports and whether its file has an `export *` (which
 * hides what the entry holds). One TypeScript program for all of them: about 3 s.
 */
export function entryNames() {
  const entries = packageEntries();
  const program = ts.createProgram(
    entries.map(({ file }) => join(root, file)),
    {
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      noEmit: true,
      skipLibCheck: true,
      types: [],
    },
  );
  const checker = program.getTypeChecker();
  return entries.map(({ entry, file }) => {
    const source = program.getSourceFile(join(root, file));
    if (source === undefined) throw new Error(`${entry}: no source file ${file}`);
    const symbol = checker.getSymbolAtLocation(source);
    const names = symbol === undefined ? [] : checker.getExportsOfModule(symbol).map((s) => s.name);
    const exportStar = source.statements.some(
      (statement) => ts.isExportDeclaration(statement) && statement.exportClause === undefined,
    );
    return { entry, file, names: names.sort(), exportStar };
  });
}

/** The budgets file as { budgets: { entry: maxNames }, exportStarAllowed: [entry] }. */
export function readBudgets() {
  return JSON.parse(readFileSync(budgetsPath, "utf8"));
}

/**
 * What breaks the budgets, one line each: an entry over its count, an entry without a budget, a
 * budget for an entry that no longer exists, an `export *` where it is not allowed.
 */
export function budgetProblems(entries, { budgets, exportStarAllowed = [] }) {
  const problems = [];
  for (const { entry, names, exportStar } of entries) {
    const budget = budgets[entry];
    if (budget === undefined)
      problems.push(`${entry}: ${names.length} names and no budget in test/entry-budgets.json`);
    else if (names.length > budget) problems.push(`${entry}: ${names.length} names, budget ${budget}`);
    if (exportStar && !exportStarAllowed.includes(entry))
      problems.push(`${entry}: \`export *\` (write a named export list)`);
  }
  const known = new Set(entries.map(({ entry }) => entry));
  for (const entry of Object.keys(budgets))
    if (!known.has(entry)) problems.push(`${entry}: a budget for an entry that does not exist`);
  return problems;
}

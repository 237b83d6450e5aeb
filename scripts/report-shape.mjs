// `pnpm report:shape`: the code's shape against its budgets, in one page.
//  - names per package entry vs test/entry-budgets.json (and any `export *` not allowed there);
//  - functions over 80 lines and source files over 400 (no tests, no generated code): the ones
//    without a `// shape-exception:` marker listed, the marked ones counted;
//  - the client's bundle (`import { createCuzkClient }`, minified, Node) vs bare connect;
//  - the install size of each published package: its production dependency closure as installed
//    in node_modules (third-party files, nested node_modules aside) plus the workspace packages'
//    published files when dist/ is built, and any dependency that builds on install;
//  - the mutation kill rate per package as `pnpm check:mutations` last measured it here
//    (reports/mutation/summary.json), when it has run.
// Exits 1 when a budget is broken: an entry over its names, an `export *`, the bundle over 1.2x,
// a kill rate under 80%.
// `--json` prints the figures as JSON instead.
import { join } from "node:path";
import { codeShape, maxFileLines, maxFunctionLines } from "./code-shape.mjs";
import { installSize, sdkPackages, workspacePackages } from "./dependency-closure.mjs";
import { budgetProblems, entryNames, readBudgets } from "./entry-names.mjs";
import {
  minKillRate,
  mutationKillRates,
  mutationRateProblems,
  readMutationSummary,
} from "./mutation-summary.mjs";
import { bundleRatioBudget, measureBundles } from "./report-bundle.mjs";

const root = join(import.meta.dirname, "..");
const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;
const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(2)} MB`;

const entries = entryNames();
const budgets = readBudgets();
const problems = budgetProblems(entries, budgets);
const shape = codeShape();
const bundle = await measureBundles();
const installs = workspacePackages().map(({ name }) => ({ name, ...installSize(name) }));
const mutations = mutationKillRates(readMutationSummary(root));
problems.push(...mutationRateProblems(mutations));
for (const pkg of installs)
  if (sdkPackages.includes(pkg.name) && pkg.builds.length > 0)
    problems.push(
      `${pkg.name}: an SDK package whose install builds ${pkg.builds.map((dep) => dep.name).join(", ")}`,
    );
if (bundle.ratio > bundleRatioBudget)
  problems.push(`client bundle: ${bundle.ratio.toFixed(2)}x bare connect, budget ${bundleRatioBudget}x`);

if (process.argv.includes("--json")) {
  console.log(
    JSON.stringify(
      {
        entries: entries.map(({ entry, names, exportStar }) => ({
          entry,
          names: names.length,
          budget: budgets.budgets[entry],
          exportStar,
        })),
        functions: shape.functions,
        files: shape.files,
        bundle: { clientBytes: bundle.clientBytes, bareBytes: bundle.bareBytes, ratio: bundle.ratio },
        installs,
        mutations: mutations ?? "not run",
        problems,
      },
      null,
      2,
    ),
  );
} else {
  console.log("== names per entry (budget: test/entry-budgets.json)");
  for (const { entry, names, exportStar } of entries) {
    const budget = budgets.budgets[entry];
    const flag = budget === undefined || names.length > budget ? "  OVER" : "";
    console.log(
      `  ${entry.padEnd(26)} ${String(names.length).padStart(4)} / ${String(budget ?? "-").padStart(4)}${exportStar ? "  (export *)" : ""}${flag}`,
    );
  }

  const unmarkedFunctions = shape.functions.filter((fn) => !fn.marked);
  console.log(
    `\n== functions over ${maxFunctionLines} lines: ${unmarkedFunctions.length} unmarked, ${shape.functions.length - unmarkedFunctions.length} marked shape-exception`,
  );
  for (const fn of unmarkedFunctions.sort((a, b) => b.lines - a.lines))
    console.log(`  ${String(fn.lines).padStart(4)}  ${fn.path}:${fn.line} ${fn.name}`);
  const unmarkedFiles = shape.files.filter((file) => !file.marked);
  console.log(
    `\n== source files over ${maxFileLines} lines: ${unmarkedFiles.length} unmarked, ${shape.files.length - unmarkedFiles.length} marked shape-exception`,
  );
  for (const file of unmarkedFiles.sort((a, b) => b.lines - a.lines))
    console.log(`  ${String(file.lines).padStart(4)}  ${file.path}`);

  console.log("\n== client bundle (import { createCuzkClient }, esbuild --minify, node, esm)");
  console.log(
    `  @cuzkit/client: ${kb(bundle.clientBytes)}, bare connect + ProvingEngine: ${kb(bundle.bareBytes)}`,
  );
  console.log(
    `  ratio ${bundle.ratio.toFixed(2)}x (budget ${bundleRatioBudget}x); details: node scripts/report-bundle.mjs`,
  );

  console.log(
    "\n== install size (production closure as installed in node_modules; own = published files, needs pnpm build)",
  );
  for (const pkg of installs) {
    const own = pkg.ownBytes === undefined ? "not built" : mb(pkg.ownBytes);
    const builds = pkg.builds.map((dep) => `${dep.name} (${dep.build})`).join(", ");
    const sdk = sdkPackages.includes(pkg.name) ? " [SDK]" : "";
    console.log(
      `  ${pkg.name.padEnd(16)} ${String(pkg.dependencies).padStart(3)} deps  ${mb(pkg.dependencyBytes).padStart(9)} third-party  own ${own}${sdk}${builds ? `  builds on install: ${builds}` : ""}`,
    );
  }

  console.log(
    `\n== mutation kill rate of the decision code (budget ${minKillRate * 100}%; pnpm check:mutations)`,
  );
  if (mutations === undefined) console.log("  not measured here: run pnpm check:mutations (~25 min)");
  else
    for (const m of mutations)
      console.log(
        `  ${m.package.padEnd(8)} ${`${(m.rate * 100).toFixed(1)}%`.padStart(6)}  killed ${m.killed}, survived ${m.survived}, equivalent ${m.equivalent}  (measured ${m.measured.slice(0, 16)})`,
      );

  console.log(problems.length === 0 ? "\nbudgets: all met" : `\nbudgets broken:\n  ${problems.join("\n  ")}`);
}
if (problems.length > 0) process.exitCode = 1;

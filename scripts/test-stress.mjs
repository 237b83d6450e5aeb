// The stress check of the test suite: runs vitest N times (default 5) while one spinning
// worker thread per core keeps every core busy, then prints every test whose outcome changed
// between runs (flaky), every test that failed in all runs, and each run's wall time. Exits 1
// when any test was flaky or always failed, 2 on bad arguments.
//
// Usage: pnpm test:stress [-- [--runs N] [--slowest N] [--burners N | --no-load] [--out DIR] [vitest args...]]
//   e.g. pnpm test:stress -- --runs 3 packages/sim examples
// --slowest N also prints the N slowest test files (median over the runs); --out DIR keeps
// each run's reports there (run-I.json, durations-I.json) instead of a temporary folder. The
// burners are threads of this process, so they end with it whatever happens (Ctrl-C, a crash,
// SIGKILL).
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join, relative } from "node:path";
import { performance } from "node:perf_hooks";
import { Worker } from "node:worker_threads";

const root = join(import.meta.dirname, "..");
const vitestBin = join(root, "node_modules", "vitest", "vitest.mjs");
const durationsReporter = join(root, "scripts", "stress-durations-reporter.mjs");

/** Parses the command line; exits 2 with a hint on a bad value. */
function parseArgs(argv) {
  const options = { runs: 5, slowest: 0, burners: availableParallelism(), out: undefined, vitestArgs: [] };
  const count = (flag, value, min) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min) {
      console.error(`test:stress: ${flag} takes an integer >= ${min}, got ${JSON.stringify(value)}`);
      process.exit(2);
    }
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--") continue; // pnpm passes the separator through
    if (arg === "--runs") options.runs = count(arg, argv[++i], 1);
    else if (arg === "--slowest") options.slowest = count(arg, argv[++i], 1);
    else if (arg === "--burners") options.burners = count(arg, argv[++i], 0);
    else if (arg === "--no-load") options.burners = 0;
    else if (arg === "--out") options.out = argv[++i];
    else options.vitestArgs.push(arg);
  }
  return options;
}

/** Starts `n` threads that spin until terminated. */
function startBurners(n) {
  return Array.from({ length: n }, () => {
    const worker = new Worker("for (;;) {}", { eval: true });
    worker.unref();
    return worker;
  });
}

/** Runs vitest once; resolves with its exit code and wall time. */
function runVitest(args, jsonPath, durationsPath, children) {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [
        vitestBin,
        "run",
        "--reporter=dot",
        "--reporter=json",
        `--reporter=${durationsReporter}`,
        `--outputFile.json=${jsonPath}`,
        ...args,
      ],
      { cwd: root, stdio: "inherit", env: { ...process.env, CUZKIT_STRESS_DURATIONS: durationsPath } },
    );
    children.add(child);
    child.on("exit", (code, signal) => {
      children.delete(child);
      resolve({ code: code ?? signal, wallMs: performance.now() - started });
    });
  });
}

/** Outcome per test ("file > suite > test") of one JSON report; a file that failed to load gets "(file)". */
function outcomesOf(report) {
  const outcomes = new Map();
  for (const file of report.testResults) {
    const name = relative(root, file.name);
    if (file.message) outcomes.set(`${name} > (file)`, "fail");
    else if (file.assertionResults.length > 0) outcomes.set(`${name} > (file)`, "pass");
    for (const test of file.assertionResults) {
      const status = test.status === "passed" ? "pass" : test.status === "failed" ? "fail" : "skip";
      outcomes.set(`${name} > ${[...test.ancestorTitles, test.title].join(" > ")}`, status);
    }
  }
  return outcomes;
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)];
};

async function main() {
  const options = parseArgs(process.argv.slice(2));
  // Reports go to a temporary folder, removed at the end, unless --out names one to keep.
  const dir = options.out ?? mkdtempSync(join(tmpdir(), "cuzkit-stress-"));
  if (options.out) mkdirSync(options.out, { recursive: true });
  const children = new Set();
  const burners = startBurners(options.burners);
  const cleanup = () => {
    for (const child of children) child.kill("SIGTERM");
    for (const worker of burners) void worker.terminate();
    if (!options.out) rmSync(dir, { recursive: true, force: true });
  };
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
    process.on(signal, () => {
      cleanup();
      process.exit(130);
    });
  }

  const runs = [];
  try {
    console.log(
      `test:stress: ${options.runs} run(s) of vitest ${options.vitestArgs.join(" ") || "(whole suite)"} with ${options.burners} burner thread(s) on ${availableParallelism()} core(s)`,
    );
    for (let i = 0; i < options.runs; i++) {
      console.log(`\n--- run ${i + 1}/${options.runs} ---`);
      const jsonPath = join(dir, `run-${i}.json`);
      const durationsPath = join(dir, `durations-${i}.json`);
      const { code, wallMs } = await runVitest(options.vitestArgs, jsonPath, durationsPath, children);
      const outcomes = existsSync(jsonPath)
        ? outcomesOf(JSON.parse(readFileSync(jsonPath, "utf8")))
        : undefined;
      const durations = existsSync(durationsPath) ? JSON.parse(readFileSync(durationsPath, "utf8")) : {};
      runs.push({ code, wallMs, outcomes, durations });
    }
  } finally {
    cleanup();
  }
  report(runs, options);
}

/** Prints the tables; sets the exit code. */
function report(runs, options) {
  const names = new Set(runs.flatMap((run) => [...(run.outcomes?.keys() ?? [])]));
  const flaky = [];
  const alwaysFailed = [];
  for (const name of [...names].sort()) {
    const seen = runs.map((run) => (run.outcomes ? (run.outcomes.get(name) ?? "-") : "?"));
    if (seen.every((o) => o === "fail")) alwaysFailed.push(name);
    else if (new Set(seen).size > 1) flaky.push([name, seen]);
  }

  console.log("\n=== test:stress summary ===");
  console.log(`burners: ${options.burners} thread(s); runs:`);
  runs.forEach((run, i) => {
    const tests = run.outcomes
      ? `${[...run.outcomes.keys()].filter((name) => !name.endsWith(" > (file)")).length} tests`
      : "no JSON report";
    console.log(
      `  run ${i + 1}: ${(run.wallMs / 1000).toFixed(1)} s wall, vitest exit ${run.code}, ${tests}`,
    );
  });
  const header = runs.map((_, i) => `r${i + 1}`.padEnd(4)).join(" ");
  console.log(`\nflaky (outcome changed between runs): ${flaky.length}`);
  if (flaky.length > 0) {
    console.log(`  ${header}  test`);
    for (const [name, seen] of flaky) console.log(`  ${seen.map((o) => o.padEnd(4)).join(" ")}  ${name}`);
  }
  console.log(`failed in every run: ${alwaysFailed.length}`);
  for (const name of alwaysFailed) console.log(`  ${name}`);
  const missing = runs.filter((run) => !run.outcomes).length;
  if (missing > 0) console.log(`runs without a JSON report (vitest crashed or was killed): ${missing}`);

  if (options.slowest > 0) {
    const files = new Set(runs.flatMap((run) => Object.keys(run.durations)));
    const rows = [...files]
      .map((file) => [relative(root, file), median(runs.map((run) => run.durations[file] ?? 0))])
      .sort((a, b) => b[1] - a[1])
      .slice(0, options.slowest);
    console.log(
      `\nslowest ${rows.length} test file(s) (median wall time over the runs, import + hooks + tests):`,
    );
    for (const [file, ms] of rows) console.log(`  ${(ms / 1000).toFixed(1).padStart(7)} s  ${file}`);
  }

  // vitest also exits non-zero on errors outside any test (an unhandled rejection, no test found).
  const erred = runs.filter(
    (run) => run.outcomes && run.code !== 0 && ![...run.outcomes.values()].includes("fail"),
  ).length;
  if (erred > 0) console.log(`runs where vitest failed with no failing test (see its output): ${erred}`);

  const ok = flaky.length === 0 && alwaysFailed.length === 0 && missing === 0 && erred === 0;
  console.log(ok ? "\ntest:stress: no flaky or failing test" : "\ntest:stress: FAILED");
  process.exitCode = ok ? 0 : 1;
}

await main();

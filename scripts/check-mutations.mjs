// The mutation check: does a test fail when the decision code is wrong? Two stages.
//   1. Core's hand-made mutations of the time helpers and retry(): each removes one clearTimeout,
//      listener removal, cap or abort check that Stryker's mutators do not reach as such.
//   2. Stryker (stryker.config.mjs) over the decision files of every package: which config the
//      tuner picks, a benchmark's verdict, an error's code and the recovery after a break, whether
//      the fleet keeps a machine, which offer ranks first, who holds the writer lease, which read
//      needs the admin token.
// It prints the kill rate per package and per file and every surviving mutant (file:line,
// mutator, replacement), and fails when a hand-made mutation survives or a package's kill rate
// is under 80%. Slow (minutes): not part of `pnpm test`. Stryker keeps an incremental file in
// reports/mutation/, so a rerun tests only mutants whose code or tests changed (but it keeps the
// old result of a static mutant, a module-level constant's: --force for figures you report).
// Usage: pnpm check:mutations [package ...] [--force (retest every mutant)] [--skip-core-cases]
//        [--report-only (summarize the last reports, run nothing)]
import { execFileSync, spawnSync } from "node:child_process";
import { closeSync, mkdirSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { decisionFiles } from "../stryker.config.mjs";
import { mergeMutationSummary, minKillRate, readMutationSummary, summaryPath } from "./mutation-summary.mjs";

const root = join(import.meta.dirname, "..");

// ---- Stage 1: core's hand-made mutations -------------------------------------------------------

const tests = ["packages/core/src/time.test.ts", "packages/core/src/retry.test.ts"];
const time = "packages/core/src/time.ts";
const retry = "packages/core/src/retry.ts";

/** [what is removed, file, text, replacement] */
const mutations = [
  [
    "realSleep's clearTimeout on abort",
    time,
    "      clearTimeout(timer);\n      reject(signal?.reason);",
    "      reject(signal?.reason);",
  ],
  [
    "realSleep's removeEventListener on resolve",
    time,
    '      signal?.removeEventListener("abort", onAbort);\n      resolve();',
    "      resolve();",
  ],
  [
    "linkSignals dispose's removeEventListener",
    time,
    'for (const [s, fn] of listeners) s.removeEventListener("abort", fn);',
    "void listeners;",
  ],
  [
    "linkSignals stopping at an aborted input",
    time,
    "      controller.abort(s.reason);\n      break;",
    "      controller.abort(s.reason);",
  ],
  ["retry's maxAttempts cap", retry, "if (n >= maxAttempts || ", "if ("],
  [
    "backoff's maxDelayMs cap before the jitter",
    retry,
    "const base = Math.min(policy.maxDelayMs, policy.minDelayMs * policy.factor ** Math.max(0, retry - 1));",
    "const base = policy.minDelayMs * policy.factor ** Math.max(0, retry - 1);",
  ],
  [
    "backoff's maxDelayMs cap after the jitter",
    retry,
    "Math.round(Math.min(policy.maxDelayMs, Math.max(0, base * scale)))",
    "Math.round(Math.max(0, base * scale))",
  ],
  [
    "retry's maxElapsedMs cap",
    retry,
    "if (options.maxElapsedMs !== undefined && clock.now() + delayMs - startMs > options.maxElapsedMs)\n        throw error;",
    "",
  ],
  [
    "retry's no-attempt-after-abort check",
    retry,
    "    if (options.signal?.aborted) throw options.signal.reason;\n",
    "",
  ],
  ["retry's signal on the wait", retry, "await sleep(delayMs, options.signal);", "await sleep(delayMs);"],
  ["retry's shouldRetry", retry, "!(options.shouldRetry?.(error, n) ?? true)", "false"],
];

function runCoreCases() {
  console.log("== core's hand-made mutations (time.ts, retry.ts)");
  const survived = [];
  for (const [name, file, text, replacement] of mutations) {
    const path = join(root, file);
    const original = readFileSync(path, "utf8");
    if (!original.includes(text)) {
      console.error(
        `mutation "${name}" no longer applies: ${file} changed; update scripts/check-mutations.mjs`,
      );
      process.exit(2);
    }
    writeFileSync(path, original.replace(text, replacement));
    let killed = false;
    try {
      execFileSync("pnpm", ["exec", "vitest", "run", ...tests], { cwd: root, stdio: "ignore" });
    } catch {
      killed = true;
    } finally {
      writeFileSync(path, original);
    }
    console.log(`${killed ? "killed  " : "SURVIVED"}  ${name}`);
    if (!killed) survived.push(name);
  }
  return survived;
}

// ---- Stage 2: Stryker over the decision files ---------------------------------------------------

/**
 * Mutants no test can tell from the original (equivalent): reported, not counted. Matched by
 * file, mutator, the original code (a string, or a RegExp for a block) and the replacement
 * (any when left out), so they follow the code when lines move.
 */
const equivalent = [
  {
    file: "packages/core/src/retry.ts",
    mutator: "ConditionalExpression",
    original: "options.maxElapsedMs !== undefined",
    replacement: "true",
    reason: "a comparison with undefined is false: no budget never throws either way",
  },
  {
    file: "packages/client/src/map-error.ts",
    mutator: "ArrayDeclaration",
    original: "[]",
    replacement: '["Stryker was here"]',
    reason: "errorChain's start: a string in the chain has no code, so it is skipped",
  },
  {
    file: "packages/client/src/map-error.ts",
    mutator: "ConditionalExpression",
    original: "props.code === undefined",
    replacement: "false",
    reason: "the set of codes never holds undefined, so the next test skips it all the same",
  },
  {
    file: "packages/client/src/map-error.ts",
    mutator: "ConditionalExpression",
    original: 'typeof code === "string"',
    replacement: "true",
    reason: "a code that is not a string (a ConnectError's number) is never in the set of Node codes",
  },
  {
    file: "packages/client/src/map-error.ts",
    mutator: "ConditionalExpression",
    original: 'typeof syscall === "string"',
    replacement: "true",
    reason: "Node's errors carry a string syscall or none",
  },
  {
    file: "packages/client/src/map-error.ts",
    mutator: "ConditionalExpression",
    original: "default:\n      return undefined;",
    reason: "the switch is the classifier's last statement: falling out of it returns undefined too",
  },
  {
    file: "packages/client/src/map-error.ts",
    mutator: "ConditionalExpression",
    original: /^case Code\.(Aborted|OutOfRange):/,
    reason:
      "falls through to the next case, which gives the same error type and code (only the wording differs)",
  },
  {
    file: "packages/bench/src/early-verdict.ts",
    mutator: "EqualityOperator",
    original: "mean - margin > 0",
    replacement: "mean - margin >= 0",
    reason: "at exactly 0 the division gives Infinity, the other branch's value",
  },
  {
    file: "packages/fleet/src/decision.ts",
    mutator: "ConditionalExpression",
    original: 'typeof actualStatus === "string"',
    replacement: "true",
    reason: "includes() of null or undefined is false all the same",
  },
  {
    file: "packages/fleet/src/keep-rule.ts",
    mutator: "EqualityOperator",
    original: "dphTotal > 0",
    replacement: "dphTotal >= 0",
    reason: "at $0/h the price asks 0 proofs/hour, which never beats the floor",
  },
  {
    file: "packages/fleet/src/keep-rule.ts",
    mutator: "ConditionalExpression",
    original: "rule.maxUsdPer1000Proofs === undefined",
    replacement: "false",
    reason: "without a ceiling the minimum is the floor, so the next check returns the floor too",
  },
  ...["candidate.machineId === undefined", "candidate.hostId === undefined"].map((original) => ({
    file: "packages/fleet/src/economics/ranking.ts",
    mutator: "ConditionalExpression",
    original,
    replacement: "false",
    reason: "Map.get(undefined) is undefined: no record either way",
  })),
  {
    file: "packages/fleet/src/economics/ranking.ts",
    mutator: "ConditionalExpression",
    original: "hoursLeft !== undefined",
    replacement: "true",
    reason: "undefined <= hours is false: no end excludes nothing either way",
  },
  {
    file: "packages/fleet/src/economics/ranking.ts",
    mutator: "OptionalChaining",
    original: "machine?.currentProofsPerHour",
    reason: "a measured rate comes from the machine's record, so the record is there",
  },
  ...[
    ["LogicalOperator", "cal !== undefined && corrected !== undefined"],
    ["ConditionalExpression", "cal !== undefined"],
    ["ConditionalExpression", "corrected !== undefined"],
  ].map(([mutator, original]) => ({
    file: "packages/fleet/src/economics/ranking.ts",
    mutator,
    original,
    reason: "the corrected rate exists exactly when the class's calibration does",
  })),
  {
    file: "packages/fleet/src/economics/ranking.ts",
    mutator: "BooleanLiteral",
    original: "false",
    replacement: "true",
    reason: "worthTrying's placeholder: set for every ranked offer right after",
  },
  {
    file: "packages/fleet/src/server/admin-token.ts",
    mutator: "BlockStatement",
    original: /^\{\s*if \(\(error as NodeJS\.ErrnoException\)\.code !== "ENOENT"\) throw error;\s*\}$/,
    reason:
      "every read error but ENOENT that a test can cause (EISDIR, ENOTDIR) fails the write after it too",
  },
  {
    file: "packages/fleet/src/server/admin-token.ts",
    mutator: "ConditionalExpression",
    original: '(error as NodeJS.ErrnoException).code !== "ENOENT"',
    replacement: "false",
    reason:
      "every read error but ENOENT that a test can cause (EISDIR, ENOTDIR) fails the write after it too",
  },
  {
    file: "packages/fleet/src/server/admin-token.ts",
    mutator: "ObjectLiteral",
    original: "{ mode: 0o600 }",
    replacement: "{}",
    reason: "the chmodSync(path, 0o600) on the next line sets the mode either way",
  },
  {
    file: "packages/fleet/src/server/admin-token.ts",
    mutator: "ConditionalExpression",
    original: 'typeof header === "string"',
    replacement: "true",
    reason: "the pattern matches nothing in undefined",
  },
  {
    file: "packages/fleet/src/server/host-check.ts",
    mutator: "ArrayDeclaration",
    original: "[]",
    replacement: '["Stryker was here"]',
    reason: "the default list then holds a name no browser sends as a Host header",
  },
  {
    file: "packages/fleet/src/server/host-check.ts",
    mutator: "ConditionalExpression",
    original: "localPort === undefined",
    replacement: "false",
    reason: "`name:undefined` matches no Host header, and undefined is not port 80",
  },
  {
    file: "packages/fleet/src/server/host-check.ts",
    mutator: "ConditionalExpression",
    original: "url === undefined",
    replacement: "false",
    reason: "new URL(undefined) throws and the catch answers undefined",
  },
  {
    file: "packages/fleet/src/server/host-check.ts",
    mutator: "BlockStatement",
    original: /^\{\s*return undefined;\s*\}$/,
    reason: "a function that returns nothing returns undefined",
  },
  ...[
    ["LogicalOperator", "row.holder !== holder || row.epoch !== epoch"],
    ["ConditionalExpression", "row.holder !== holder"],
    ["ConditionalExpression", "row.epoch !== epoch"],
  ].map(([mutator, original]) => ({
    file: "packages/fleet/src/store/writer-lease.ts",
    mutator,
    original,
    replacement: mutator === "LogicalOperator" ? undefined : "false",
    reason:
      "a renewal's check: every new tenure bumps the epoch, so another holder always brings another epoch",
  })),
  ...[
    ["throughputStep(a.objective) > throughputStep(b.objective)", ">="],
    ["a.peakBytes < b.peakBytes", "<="],
    ["a.knobs.concurrency < b.knobs.concurrency", "<="],
    ["a.knobs.gpuWorkersPerDevice > b.knobs.gpuWorkersPerDevice", ">="],
  ].map(([original]) => ({
    file: "packages/tuner/src/search.ts",
    mutator: "EqualityOperator",
    original,
    reason: "isBetter compares only values the line before found unequal, where < and <= agree",
  })),
  {
    file: "packages/tuner/src/search.ts",
    mutator: "EqualityOperator",
    original: "objective > 0",
    replacement: "objective >= 0",
    reason: "log(0) is -Infinity, so the step of 0 is -Infinity either way",
  },
  {
    file: "packages/tuner/src/search.ts",
    mutator: "EqualityOperator",
    original: "sec < bestSec - 1e-12",
    replacement: "sec <= bestSec - 1e-12",
    reason: "GPU seconds exactly 1e-12 under the best never occur: the model's times differ by far more",
  },
  {
    file: "packages/tuner/src/search.ts",
    mutator: "ConditionalExpression",
    original: "hw.gpus.length === 0",
    replacement: "false",
    reason: "without a GPU the model's GPU time does not fall with more workers, so the loop keeps 1",
  },
  {
    file: "packages/bench/src/early-verdict.ts",
    mutator: "ArithmeticOperator",
    original: "(cycles.length % slots) + 1",
    reason: "the round robin's slot numbers are labels: -1 and 0 count as two slots as 1 and 2 do",
  },
  ...[
    [
      "lower >= minProofsPerHour * (1 + o.indifference / 2)",
      "lower > minProofsPerHour * (1 + o.indifference / 2)",
    ],
    [
      "upper < minProofsPerHour * (1 - o.indifference / 2)",
      "upper <= minProofsPerHour * (1 - o.indifference / 2)",
    ],
  ].map(([original, replacement]) => ({
    file: "packages/bench/src/early-verdict.ts",
    mutator: "EqualityOperator",
    original,
    replacement,
    reason: "a t-bound exactly on the zone's edge takes a floating-point coincidence no test can aim at",
  })),
  ...["packages/core/src/time.ts"].flatMap((file) => [
    {
      file,
      mutator: "ObjectLiteral",
      original: "{ once: true }",
      replacement: "{}",
      reason: "an aborted signal never fires again, and the listener is removed on resolve or dispose",
    },
    {
      file,
      mutator: "BooleanLiteral",
      original: "true",
      replacement: "false",
      reason: "the `once` of an abort listener: an aborted signal never fires again",
    },
    {
      file,
      mutator: "OptionalChaining",
      original: "signal?.reason",
      replacement: "signal.reason",
      reason: "onAbort runs only as the listener of a signal, so the signal is there",
    },
  ]),
];

const isEquivalent = (file, mutant, original) =>
  equivalent.find(
    (e) =>
      e.file === file &&
      e.mutator === mutant.mutatorName &&
      (e.original instanceof RegExp ? e.original.test(original) : e.original === original) &&
      (e.replacement === undefined || e.replacement === mutant.replacement),
  );

/** The source text a mutant replaces. */
function originalText(source, location) {
  const lines = source.split("\n");
  const { start, end } = location;
  if (start.line === end.line) return lines[start.line - 1]?.slice(start.column - 1, end.column - 1) ?? "";
  const first = lines[start.line - 1]?.slice(start.column - 1) ?? "";
  const middle = lines.slice(start.line, end.line - 1);
  const last = lines[end.line - 1]?.slice(0, end.column - 1) ?? "";
  return [first, ...middle, last].join("\n");
}

const oneLine = (text) => {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > 90 ? `${flat.slice(0, 87)}...` : flat;
};

const packageOf = (file) => /^packages\/([^/]+)\//.exec(file)?.[1] ?? "other";

/** Runs Stryker over one package's decision files; its report lands in reports/mutation/<package>.json. */
function runStryker(pkg, force) {
  console.log(`\n== Stryker over ${pkg}: ${decisionFiles[pkg].join(", ")}`);
  const args = ["exec", "stryker", "run", "stryker.config.mjs"];
  if (force) args.push("--force");
  // Stryker's own output (progress, its score table) goes to reports/mutation/<package>.log.
  mkdirSync(join(root, "reports/mutation"), { recursive: true });
  const log = join(root, `reports/mutation/${pkg}.log`);
  const fd = openSync(log, "w");
  const startMs = Date.now();
  try {
    execFileSync("pnpm", args, {
      cwd: root,
      stdio: ["ignore", fd, fd],
      env: { ...process.env, CUZKIT_MUTATION_PACKAGE: pkg },
    });
  } catch {
    console.error(readFileSync(log, "utf8").split("\n").slice(-30).join("\n"));
    console.error(`Stryker failed on ${pkg}; its log: ${relative(root, log)}`);
    process.exit(2);
  } finally {
    closeSync(fd);
  }
  console.log(`   done in ${Math.round((Date.now() - startMs) / 1000)} s (log: ${relative(root, log)})`);
}

function summarize(packages) {
  const rows = new Map(); // package -> Map(file -> counts)
  const survivors = [];
  const equivalents = [];
  // Each file with the run (a package, or a slow part of one) that mutated it.
  const files = packages.flatMap((run) =>
    Object.entries(JSON.parse(readFileSync(join(root, `reports/mutation/${run}.json`), "utf8")).files).map(
      ([path, file]) => [path, file, run],
    ),
  );
  const runs = {}; // run -> { package, killed, survived, equivalent }, for the kept summary
  for (const [path, { source, mutants }, run] of files) {
    const file = relative(root, join(root, path));
    const counts = { killed: 0, survived: 0, equivalent: 0 };
    for (const mutant of mutants) {
      const original = originalText(source, mutant.location);
      const where = `${file}:${mutant.location.start.line}`;
      const what = `${mutant.mutatorName}: ${oneLine(original)} -> ${oneLine(mutant.replacement ?? "")}`;
      if (mutant.status === "Killed" || mutant.status === "Timeout") counts.killed++;
      else if (mutant.status === "Survived" || mutant.status === "NoCoverage") {
        const known = isEquivalent(file, mutant, original);
        if (known) {
          counts.equivalent++;
          equivalents.push(`${where}  ${what}  (${known.reason})`);
        } else {
          counts.survived++;
          survivors.push(`${where}  ${what}${mutant.status === "NoCoverage" ? "  [no test covers it]" : ""}`);
        }
      } else if (mutant.status === "Ignored" && !/excluded mutation/.test(mutant.statusReason ?? "")) {
        counts.equivalent++;
        equivalents.push(`${where}  ${what}  (${mutant.statusReason ?? "ignored"})`);
      }
      // CompileError and RuntimeError mutants are not valid programs: not counted.
    }
    const pkg = packageOf(file);
    runs[run] ??= { package: pkg, killed: 0, survived: 0, equivalent: 0 };
    for (const k of ["killed", "survived", "equivalent"]) runs[run][k] += counts[k];
    if (!rows.has(pkg)) rows.set(pkg, new Map());
    rows.get(pkg).set(file, counts);
  }

  const rate = (c) => (c.killed + c.survived === 0 ? 1 : c.killed / (c.killed + c.survived));
  const pct = (r) => `${(r * 100).toFixed(1)}%`.padStart(6);
  const failing = [];
  console.log("\n== Kill rate (killed / (killed + survived); equivalent mutants not counted)");
  for (const [pkg, files] of [...rows].sort(([a], [b]) => a.localeCompare(b))) {
    const total = { killed: 0, survived: 0, equivalent: 0 };
    for (const c of files.values()) for (const k of Object.keys(total)) total[k] += c[k];
    const r = rate(total);
    if (r < minKillRate) failing.push(pkg);
    console.log(
      `${pct(r)}  ${pkg.padEnd(8)} ${total.killed} killed, ${total.survived} survived, ${total.equivalent} equivalent${r < minKillRate ? "  BELOW 80%" : ""}`,
    );
    for (const [file, c] of files) {
      console.log(`  ${pct(rate(c))}  ${file}  (${c.killed}/${c.killed + c.survived})`);
    }
  }
  if (equivalents.length > 0) {
    console.log(`\n== Equivalent mutants (${equivalents.length}), not counted`);
    for (const line of equivalents) console.log(`  ${line}`);
  }
  console.log(`\n== Surviving mutants (${survivors.length})`);
  for (const line of survivors) console.log(`  ${line}`);
  // Kept for `pnpm report:shape`, beside the older rows of packages not run this time.
  const commit = spawnSync("git", ["rev-parse", "--short", "HEAD"], {
    cwd: root,
    encoding: "utf8",
  }).stdout.trim();
  const summary = mergeMutationSummary(readMutationSummary(root), runs, new Date().toISOString(), commit);
  writeFileSync(summaryPath(root), `${JSON.stringify(summary, null, 2)}\n`);
  return failing;
}

const args = process.argv.slice(2);
const force = args.includes("--force");
const reportOnly = args.includes("--report-only");
const skipCore = reportOnly || args.includes("--skip-core-cases");
const chosen = args.filter((a) => !a.startsWith("--"));
for (const p of chosen) {
  if (!(p in decisionFiles)) {
    console.error(`unknown package "${p}": one of ${Object.keys(decisionFiles).join(", ")}`);
    process.exit(2);
  }
}
const packages = chosen.length > 0 ? chosen : Object.keys(decisionFiles);
const startMs = Date.now();
const survivedCore = skipCore || !packages.includes("core") ? [] : runCoreCases();
if (!reportOnly) for (const pkg of packages) runStryker(pkg, force);
const failing = summarize(packages);
console.log(`\nmutation check took ${Math.round((Date.now() - startMs) / 1000)} s`);
if (survivedCore.length > 0) {
  console.error(`${survivedCore.length} hand-made mutation(s) survived: add a test that fails without it`);
}
if (failing.length > 0) {
  console.error(`kill rate under ${minKillRate * 100}% in: ${failing.join(", ")}`);
}
if (survivedCore.length > 0 || failing.length > 0) process.exit(1);

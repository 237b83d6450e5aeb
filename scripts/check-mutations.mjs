// The mutation check of core's time helpers and retry(): each mutation below removes one
// clearTimeout, listener removal, cap or abort check; the check applies it, runs the tests
// that guard it, and restores the file. A mutation the tests survive fails the check (a test
// that cannot fail guards nothing). Usage: pnpm check:mutations [name filter]
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dirname, "..");
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

const filter = process.argv[2];
const survived = [];
for (const [name, file, text, replacement] of mutations) {
  if (filter !== undefined && !name.includes(filter)) continue;
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
if (survived.length > 0) {
  console.error(`${survived.length} mutation(s) survived: add a test that fails without it`);
  process.exit(1);
}

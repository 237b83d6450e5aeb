import { execFileSync } from "node:child_process";

/** What one entry gave when loaded: its export names, or why it failed to load. */
export type EntryLoad = { keys: string[] } | { error: string };

/**
 * Loads every entry (`@cuzkit/core`, `@cuzkit/core/testing`, ...) in one fresh node process run in
 * `cwd` (the consumer project they are installed in), with `import()` (ESM) or `require()`,
 * and returns, per entry, its export names or the error that loading it threw. One process per
 * loader for all entries instead of one per entry: a failing entry is still reported by name.
 */
export function loadEntries(cwd: string, specifiers: string[], loader: "import" | "require") {
  const load =
    loader === "import" ? "Object.keys(await import(specifier))" : "Object.keys(require(specifier))";
  const script = `const results = {};
for (const specifier of ${JSON.stringify(specifiers)}) {
  try { results[specifier] = { keys: ${load} }; }
  catch (error) { results[specifier] = { error: String(error && error.stack || error) }; }
}
console.log(JSON.stringify(results));`;
  const args = loader === "import" ? ["--input-type=module", "-e", script] : ["-e", script];
  const output = execFileSync("node", args, {
    cwd,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    timeout: 120_000,
  });
  // The last line: an entry may log while it loads.
  const last = output.trim().split("\n").at(-1) ?? "{}";
  return new Map(Object.entries(JSON.parse(last) as Record<string, EntryLoad>));
}

/** The export names of a loaded entry; throws with the entry's name and load error otherwise. */
export function exportsOf(loads: Map<string, EntryLoad>, specifier: string): string[] {
  const load = loads.get(specifier);
  if (load === undefined) throw new Error(`${specifier} was not loaded`);
  if ("error" in load) throw new Error(`${specifier} failed to load:\n${load.error}`);
  return load.keys;
}

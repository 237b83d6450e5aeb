import { join, relative } from "node:path";
import { build, type Metafile } from "esbuild";
import { describe, expect, it } from "vitest";

// `cuzkit` builds every command's definition (flags, help, completion data) at start; each
// action loads its implementation with import() when it runs. This test keeps it so: a static
// import of an implementation from a definition would make every `cuzkit ...` (and every process
// the tests spawn) load the gRPC client, the simulator, the fleet manager and more again.
//
// Why esbuild's metafile and not the modules a fresh import loads: the import graph is read from
// the sources, the same on every machine and run, whatever vitest or tsx has cached, and it
// separates `import` (loaded at start) from `import()` (loaded by an action) exactly. The bundle
// is split at each import(), so the modules at start are the inputs of the entry's chunk and of
// the chunks it imports statically.

const root = join(import.meta.dirname, "..", "..", "..");

/** What a definition must not load: the implementations of the commands. */
const heavy: readonly [string, RegExp][] = [
  ["@cuzkit/client", /^packages\/client\//],
  ["@cuzkit/sim", /^packages\/sim\//],
  ["@cuzkit/bench", /^packages\/bench\//],
  ["@cuzkit/tuner", /^packages\/tuner\//],
  ["@cuzkit/vast", /^packages\/vast\//],
  // The fleet's defaults module imports nothing, for the help; the rest is the manager.
  ["@cuzkit/fleet", /^packages\/fleet\/(?!src\/defaults\.ts$)/],
  ["@cuzkit/proto", /^proto\//],
  ["@connectrpc", /node_modules\/@connectrpc\//],
  ["@grpc", /node_modules\/@grpc\//],
  ["fastify", /node_modules\/fastify\//],
  ["zod", /node_modules\/zod\//],
  ["cli-progress", /node_modules\/cli-progress\//],
];

/** The inputs loaded at start by `entry` (static imports only), relative to the repository. */
async function loadedAtStart(entry: string): Promise<{ atStart: string[]; all: string[] }> {
  const result = await build({
    entryPoints: [join(root, entry)],
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    // From the sources: tsconfig paths map @cuzkit/* to packages/*/src.
    tsconfig: join(root, "tsconfig.json"),
    outdir: join(root, ".tmp", "start-up-imports"),
    write: false,
    metafile: true,
    logLevel: "silent",
  });
  const outputs: Metafile["outputs"] = result.metafile.outputs;
  const entryOutput = Object.keys(outputs).find((key) => outputs[key]?.entryPoint === entry);
  if (entryOutput === undefined) throw new Error(`no output for ${entry}`);
  const seen = new Set<string>();
  const pending = [entryOutput];
  for (let key = pending.pop(); key !== undefined; key = pending.pop()) {
    if (seen.has(key)) continue;
    seen.add(key);
    for (const imported of outputs[key]?.imports ?? []) {
      if (imported.kind === "import-statement" && imported.path in outputs) pending.push(imported.path);
    }
  }
  const inputsOf = (keys: Iterable<string>) =>
    [...keys]
      .flatMap((key) => Object.keys(outputs[key]?.inputs ?? {}))
      .map((path) => relative(root, join(root, path)));
  return { atStart: inputsOf(seen), all: inputsOf(Object.keys(outputs)) };
}

describe("what `cuzkit` loads at start", () => {
  it.each(["packages/cli/src/bin.ts", "packages/cli/src/program.ts"])(
    "%s loads the command definitions but no implementation",
    async (entry) => {
      const { atStart, all } = await loadedAtStart(entry);
      // The analysis sees the program: its definitions at start, the implementations behind import().
      expect(atStart).toEqual(
        expect.arrayContaining([
          "packages/cli/src/commands/sim.ts",
          "packages/cli/src/commands/bench.ts",
          "packages/cli/src/commands/agent.ts",
          "packages/cli/src/commands/fleet/index.ts",
          "packages/cli/src/commands/vast/index.ts",
        ]),
      );
      expect(atStart.some((path) => /node_modules\/commander\//.test(path))).toBe(true);
      expect(all).toEqual(
        expect.arrayContaining([
          "packages/cli/src/commands/sim-run.ts",
          "packages/sim/src/index.ts",
          "packages/fleet/src/index.ts",
        ]),
      );
      const loaded = heavy.flatMap(([name, pattern]) =>
        atStart.filter((path) => pattern.test(path)).map((path) => `${name}: ${path}`),
      );
      expect(loaded).toEqual([]);
    },
    30_000,
  );
});

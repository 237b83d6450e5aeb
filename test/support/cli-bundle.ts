import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { build, type Plugin } from "esbuild";

/** The repository root. */
const repoRoot = join(import.meta.dirname, "..", "..");

// `import.meta.url`, `.dirname` and `.filename`, as whole words.
const importMeta = /\bimport\.meta\.(url|dirname|filename)\b/g;

/**
 * Bundles only our TypeScript: every dependency in node_modules stays a separate import, by
 * absolute file URL (the bundle lives in a temporary folder, where a bare name would not
 * resolve), so it loads the very file it loads from source; `node:` modules stay external.
 * Each source file keeps its own `import.meta.url`, `.dirname` and `.filename`, so what a
 * source file finds next to itself (the dashboard's web assets, `../package.json`,
 * `createRequire` for better-sqlite3) it still finds from the bundle.
 */
const keepSourcePaths: Plugin = {
  name: "keep-source-paths",
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.path.startsWith("@cuzkit/") || args.pluginData === "inner" || args.kind === "entry-point")
        return undefined; // ours (tsconfig paths), bundled
      if (args.path.startsWith("node:")) return { external: true };
      const found = await b.resolve(args.path, {
        resolveDir: args.resolveDir,
        kind: args.kind,
        pluginData: "inner",
      });
      if (found.errors.length > 0) return { errors: found.errors };
      const dependency = found.path.includes("/node_modules/");
      return { path: dependency ? pathToFileURL(found.path).href : found.path, external: dependency };
    });
    b.onLoad({ filter: /\.ts$/ }, async (args) => {
      const source = await readFile(args.path, "utf8");
      const url = pathToFileURL(args.path);
      const values: Record<string, string> = {
        url: url.href,
        dirname: join(args.path, ".."),
        filename: args.path,
      };
      return {
        contents: source.replace(importMeta, (_, key: string) => JSON.stringify(values[key])),
        loader: "ts",
      };
    });
  },
};

/**
 * Bundles the TypeScript entry `entry` (a path from the repository root) and our sources it
 * imports into `outfile`, an ES module that `node outfile` runs as `node --import tsx entry`
 * would, without tsx transforming and resolving every source file at each start.
 */
export async function bundleSources(entry: string, outfile: string): Promise<void> {
  await build({
    absWorkingDir: repoRoot,
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    tsconfig: "tsconfig.json",
    // Pick a dependency's file as Node does: no "module" condition, "main" only.
    conditions: [],
    mainFields: ["main"],
    // Functions and classes keep their names (error.constructor.name is reported), as under tsx.
    keepNames: true,
    logLevel: "warning",
    plugins: [keepSourcePaths],
  });
}

/** Bundles the `cuzkit` command (packages/cli/src/bin.ts) into `outfile` (see bundleSources). */
export function bundleCuzkit(outfile: string): Promise<void> {
  return bundleSources("packages/cli/src/bin.ts", outfile);
}

// `node scripts/report-bundle.mjs [--top N] [--json] [--dist]`: what a single import of the client costs a
// bundled application. Bundles `import { createCuzkClient } from "@cuzkit/client"` (the README's
// first line) with esbuild, minified for Node, from the TypeScript sources (tsconfig paths, so no
// build is needed; --dist: from the built packages, as published), and the same minimal program written against bare @connectrpc/connect +
// @connectrpc/connect-node: a client of cuzk's ProvingEngine service over gRPC. Prints both sizes,
// the ratio (budget: 1.2x) and the inputs that weigh most in the client's bundle (esbuild's
// metafile), and exits 1 when the ratio is over budget. Shared with scripts/report-shape.mjs.
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";

const root = join(import.meta.dirname, "..");

/** The most the client's bundle may weigh, as a multiple of the bare connect bundle. */
export const bundleRatioBudget = 1.2;

const programs = {
  client: `import { createCuzkClient } from "@cuzkit/client";
export const client = createCuzkClient({ address: "127.0.0.1:9820" });`,
  bare: `import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { ProvingEngine } from "@cuzkit/proto";
export const client = createClient(ProvingEngine, createGrpcTransport({ baseUrl: "http://127.0.0.1:9820" }));`,
};

async function bundle(contents, { fromDist = false } = {}) {
  const result = await build({
    stdin: { contents, resolveDir: join(root, "packages", "client"), loader: "ts", sourcefile: "app.ts" },
    bundle: true,
    minify: true,
    platform: "node",
    format: "esm",
    target: "node20",
    // From the sources (tsconfig paths), or as published: the packages' built dist/ (exports).
    tsconfig: join(root, fromDist ? "tsconfig.base.json" : "tsconfig.json"),
    write: false,
    metafile: true,
    logLevel: "silent",
  });
  const output = Object.values(result.metafile.outputs)[0];
  const inputs = Object.entries(output?.inputs ?? {})
    .map(([path, { bytesInOutput }]) => ({ path, bytes: bytesInOutput }))
    .sort((a, b) => b.bytes - a.bytes);
  return { bytes: result.outputFiles[0]?.contents.byteLength ?? 0, inputs };
}

/**
 * Both bundles: { clientBytes, bareBytes, ratio, clientInputs, bareInputs }. `fromDist`: bundle
 * the built packages (run `pnpm build` first) instead of the sources.
 */
export async function measureBundles({ fromDist = false } = {}) {
  const [client, bare] = await Promise.all([
    bundle(programs.client, { fromDist }),
    bundle(programs.bare, { fromDist }),
  ]);
  return {
    clientBytes: client.bytes,
    bareBytes: bare.bytes,
    ratio: client.bytes / bare.bytes,
    clientInputs: client.inputs,
    bareInputs: bare.inputs,
  };
}

const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const topIndex = process.argv.indexOf("--top");
  const top = topIndex === -1 ? 15 : Number(process.argv[topIndex + 1]);
  const result = await measureBundles({ fromDist: process.argv.includes("--dist") });
  if (process.argv.includes("--json")) {
    console.log(JSON.stringify(result, null, 2));
  } else {
    console.log(`createCuzkClient alone:  ${kb(result.clientBytes)} (minified, node, esm)`);
    console.log(`bare connect + service: ${kb(result.bareBytes)}`);
    console.log(`ratio: ${result.ratio.toFixed(2)}x (budget ${bundleRatioBudget}x)`);
    const bare = new Set(result.bareInputs.map(({ path }) => path));
    console.log(`\nheaviest inputs of the client's bundle (* = not in the bare bundle):`);
    for (const { path, bytes } of result.clientInputs.slice(0, top))
      console.log(`  ${kb(bytes).padStart(9)}  ${bare.has(path) ? " " : "*"} ${path}`);
  }
  if (result.ratio > bundleRatioBudget) process.exitCode = 1;
}

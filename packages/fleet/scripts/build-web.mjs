// Bundles the dashboard (src/web/dashboard.ts, uPlot and the CSS) into web/dashboard.js and
// web/dashboard.css with esbuild. The output is committed, so the package serves it without a
// build step; src/server/web-bundle.test.ts fails when it is not what this script makes now.
// `node scripts/build-web.mjs --check` exits 1 when the committed bundle is stale.
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = fileURLToPath(new URL("..", import.meta.url));

/** Builds in memory and returns { "dashboard.js": text, "dashboard.css": text }. */
export async function bundleDashboard() {
  const result = await build({
    entryPoints: [`${root}src/web/dashboard.ts`],
    bundle: true,
    write: false,
    format: "iife",
    target: "es2022",
    minify: true,
    legalComments: "eof",
    outdir: `${root}web`,
    logLevel: "silent",
  });
  const files = {};
  for (const file of result.outputFiles) files[file.path.split("/").pop()] = file.text;
  return files;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const files = await bundleDashboard();
  const check = process.argv.includes("--check");
  let stale = false;
  for (const [name, text] of Object.entries(files)) {
    const path = `${root}web/${name}`;
    if (check) {
      let current = "";
      try {
        current = readFileSync(path, "utf8");
      } catch {}
      if (current !== text) {
        stale = true;
        console.error(`web/${name} is stale: run pnpm --filter @cuzkit/fleet build:web`);
      }
    } else {
      writeFileSync(path, text);
      console.log(`web/${name} ${(text.length / 1024).toFixed(1)} KiB`);
    }
  }
  if (stale) process.exit(1);
}

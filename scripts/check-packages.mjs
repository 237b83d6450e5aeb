// `pnpm check:packages`: lints every package as it would be published, from its packed tarball:
// publint (package.json fields, exports, files) and Are the Types Wrong (types resolve for every
// entry under each module resolution). The packages are ESM only, so attw runs with its
// esm-only profile: CommonJS `node16` resolution is not a target (see the README's TypeScript
// settings). `--skip-build` reuses dist/ from a build just made (CI, after `pnpm test`).
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { packAll, root } from "./pack-packages.mjs";

const build = !process.argv.includes("--skip-build");
const bin = (name) => join(root, "node_modules", ".bin", name);
const packed = packAll(join(root, ".tmp", "check-packages"), { build });
const failed = [];
for (const pkg of packed) {
  console.log(`\n== ${pkg.name}@${pkg.version}`);
  for (const [tool, args] of [
    ["publint", ["run", "--strict", pkg.tarball]],
    ["attw", ["--profile", "esm-only", "--no-emoji", "--no-color", "--format", "table-flipped", pkg.tarball]],
  ]) {
    try {
      execFileSync(bin(tool), args, { cwd: root, stdio: "inherit" });
    } catch {
      failed.push(`${pkg.name}: ${tool}`);
    }
  }
}
if (failed.length > 0) {
  console.error(`\npackage checks failed:\n  ${failed.join("\n  ")}`);
  process.exitCode = 1;
} else {
  console.log(`\npublint and attw: ${packed.length} packages clean`);
}

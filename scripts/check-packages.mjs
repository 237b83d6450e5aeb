// `pnpm check:packages`: lints every package as it would be published, from its packed tarball:
// publint (package.json fields, exports, files) and Are the Types Wrong (types resolve for every
// entry under each module resolution). The packages are ESM only, so attw runs with its
// esm-only profile: CommonJS `node16` resolution is not a target (see the README's TypeScript
// settings). `--skip-build` reuses dist/ from a build just made (CI, after `pnpm test`).
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { packAll, root } from "./pack-packages.mjs";
import { publintTarball } from "./publint-tarball.mjs";

const build = !process.argv.includes("--skip-build");
const attw = join(root, "node_modules", ".bin", "attw");
const packed = packAll(join(root, ".tmp", "check-packages"), { build });
const failed = [];
for (const pkg of packed) {
  console.log(`\n== ${pkg.name}@${pkg.version}`);
  // publint in this process (one load for every package); attw through its CLI.
  const problems = await publintTarball(pkg.tarball);
  console.log(problems.length === 0 ? "publint: all good" : `publint:\n  ${problems.join("\n  ")}`);
  if (problems.length > 0) failed.push(`${pkg.name}: publint`);
  try {
    execFileSync(
      attw,
      ["--profile", "esm-only", "--no-emoji", "--no-color", "--format", "table-flipped", pkg.tarball],
      { cwd: root, stdio: "inherit" },
    );
  } catch {
    failed.push(`${pkg.name}: attw`);
  }
}
if (failed.length > 0) {
  console.error(`\npackage checks failed:\n  ${failed.join("\n  ")}`);
  process.exitCode = 1;
} else {
  console.log(`\npublint and attw: ${packed.length} packages clean`);
}

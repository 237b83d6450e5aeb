// `pnpm release`: publishes the versions `pnpm version-packages` wrote, after checking the
// packed packages (publint, attw). `pnpm release --dry-run` publishes nothing: it builds, packs
// every public package as the registry would get it, checks them, and lists each tarball with
// its version, size and files, plus the changesets still waiting for `pnpm version-packages`.
import { execFileSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { packAll, root, tarballFiles } from "./pack-packages.mjs";

const dryRun = process.argv.includes("--dry-run");
const destination = join(root, ".tmp", "release");
const packed = packAll(destination, { build: !process.argv.includes("--skip-build") });
execFileSync("node", [join(root, "scripts", "check-packages.mjs"), "--skip-build"], {
  cwd: root,
  stdio: ["ignore", "ignore", "inherit"],
});

const pending = readdirSync(join(root, ".changeset")).filter(
  (file) => file.endsWith(".md") && file !== "README.md",
);
console.log(
  `${dryRun ? "would publish" : "publishing"} ${packed.length} packages (tarballs in ${destination}):`,
);
for (const pkg of packed) {
  const files = tarballFiles(pkg.tarball);
  const kib = (statSync(pkg.tarball).size / 1024).toFixed(1);
  console.log(`\n${pkg.name}@${pkg.version}  ${kib} KiB packed, ${files.length} files`);
  for (const file of files) console.log(`  ${file}`);
}
if (pending.length > 0) {
  // The versions those changesets would give (run `pnpm version-packages` to apply them).
  console.log(`\n${pending.length} changeset(s) not yet applied:`);
  execFileSync(join(root, "node_modules", ".bin", "changeset"), ["status", "--verbose"], {
    cwd: root,
    stdio: "inherit",
  });
}
if (!dryRun) {
  if (pending.length > 0) {
    console.error("\nrefusing to publish: changesets are pending; run `pnpm version-packages` and commit");
    process.exit(1);
  }
  execFileSync(join(root, "node_modules", ".bin", "changeset"), ["publish"], { cwd: root, stdio: "inherit" });
}

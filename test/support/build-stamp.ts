import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";

// `pnpm run build` takes minutes on a loaded 2-core machine, nearly all of it tsup's declaration
// bundling. A build is a function of its inputs (the packages' files but their tests, and the
// workspace's manifests, lockfile and tsconfigs), so when neither those nor the dist/ it wrote have
// changed since, building again would write the same dist/: the packaging test then reuses it.

const rootInputs = [
  "package.json",
  "pnpm-lock.yaml",
  "pnpm-workspace.yaml",
  "tsconfig.json",
  "tsconfig.base.json",
];

function hashFiles(root: string, files: string[]): string {
  const hash = createHash("sha256");
  for (const file of [...files].sort()) {
    hash.update(`${file}\0`);
    const path = join(root, file);
    hash.update(existsSync(path) ? readFileSync(path) : "(missing)");
    hash.update("\0");
  }
  return hash.digest("hex");
}

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

/** The hashes of what a build reads (tracked and new files, tests aside) and of the dist/ it wrote. */
export function buildFingerprint(root: string, packageDirs: string[]) {
  const listed = execFileSync(
    "git",
    ["ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", ...packageDirs],
    { cwd: root, encoding: "utf8" },
  );
  const inputs = listed
    .split("\0")
    .filter((file) => file !== "" && !file.endsWith(".test.ts"))
    .concat(rootInputs);
  const outputs = packageDirs.flatMap((dir) =>
    filesUnder(join(root, dir, "dist")).map((path) => relative(root, path)),
  );
  return { inputs: hashFiles(root, inputs), outputs: hashFiles(root, outputs), distFiles: outputs.length };
}

const stampPath = (root: string) => join(root, ".tmp", "build-stamp.json");

/** Whether dist/ is what `pnpm run build` last wrote from the inputs as they are now. */
export function buildIsCurrent(root: string, packageDirs: string[]): boolean {
  if (!existsSync(stampPath(root))) return false;
  const stamp = JSON.parse(readFileSync(stampPath(root), "utf8")) as { inputs?: string; outputs?: string };
  const now = buildFingerprint(root, packageDirs);
  return now.distFiles > 0 && stamp.inputs === now.inputs && stamp.outputs === now.outputs;
}

/** Runs `build` and, once it has succeeded, records its fingerprint (removed while it runs). */
export function buildAndStamp(root: string, packageDirs: string[], build: () => void): void {
  rmSync(stampPath(root), { force: true });
  const before = buildFingerprint(root, packageDirs).inputs;
  build();
  const after = buildFingerprint(root, packageDirs);
  // An input edited while the build ran: leave no stamp, so the next run builds again.
  if (after.inputs !== before) return;
  mkdirSync(dirname(stampPath(root)), { recursive: true });
  writeFileSync(stampPath(root), JSON.stringify({ inputs: after.inputs, outputs: after.outputs }));
}

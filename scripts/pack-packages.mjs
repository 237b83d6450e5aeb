// The packages that would be published, packed as the registry would get them: `pnpm pack`
// rewrites `workspace:*` to real versions. Shared by check-packages.mjs and release.mjs.
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";

export const root = join(import.meta.dirname, "..");

/** Every workspace package that is not private: { dir, name, version }. */
export function publicPackages() {
  const dirs = ["proto", ...readdirSync(join(root, "packages")).map((name) => join("packages", name))];
  return dirs
    .map((dir) => ({ dir, manifest: JSON.parse(readFileSync(join(root, dir, "package.json"), "utf8")) }))
    .filter(({ manifest }) => manifest.private !== true)
    .map(({ dir, manifest }) => ({ dir, name: manifest.name, version: manifest.version }));
}

/**
 * Builds (unless `build` is false: the caller has just built) and packs every public package into
 * `destination`, emptied first, with one `pnpm -r pack` (one process for all of them). Returns each
 * package with the path of its tarball.
 */
export function packAll(destination, { build = true } = {}) {
  rmSync(destination, { recursive: true, force: true });
  mkdirSync(destination, { recursive: true });
  if (build) execFileSync("pnpm", ["run", "build"], { cwd: root, stdio: "inherit" });
  const packages = publicPackages();
  const filters = packages.flatMap((pkg) => ["--filter", `./${pkg.dir}`]);
  const report = execFileSync(
    "pnpm",
    ["-r", ...filters, "pack", "--pack-destination", destination, "--json"],
    { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"], maxBuffer: 64 * 1024 * 1024 },
  );
  const tarballs = new Map(JSON.parse(report).map((entry) => [entry.name, entry.filename]));
  return packages.map((pkg) => {
    const tarball = tarballs.get(pkg.name);
    if (tarball === undefined) throw new Error(`pnpm pack wrote no tarball for ${pkg.name}`);
    return { ...pkg, tarball: resolve(destination, tarball) };
  });
}

/** The files inside a tarball (without the leading package/), sorted. */
export function tarballFiles(tarball) {
  return execFileSync("tar", ["-tzf", tarball], { encoding: "utf8" })
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => line.replace(/^package\//, ""))
    .sort();
}

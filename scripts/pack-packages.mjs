// The packages that would be published, packed as the registry would get them: `pnpm pack`
// rewrites `workspace:*` to real versions. Shared by check-packages.mjs and release.mjs.
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";

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
 * `destination`, emptied first. Returns each package with the path of its tarball.
 */
export function packAll(destination, { build = true } = {}) {
  rmSync(destination, { recursive: true, force: true });
  mkdirSync(destination, { recursive: true });
  if (build) execFileSync("pnpm", ["run", "build"], { cwd: root, stdio: "inherit" });
  return publicPackages().map((pkg) => {
    const before = new Set(readdirSync(destination));
    execFileSync("pnpm", ["pack", "--pack-destination", destination], {
      cwd: join(root, pkg.dir),
      stdio: ["ignore", "ignore", "inherit"],
    });
    const tarball = readdirSync(destination).find((file) => !before.has(file));
    if (tarball === undefined) throw new Error(`pnpm pack wrote no tarball for ${pkg.name}`);
    return { ...pkg, tarball: join(destination, tarball) };
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

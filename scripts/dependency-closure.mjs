// The production dependency closure of each workspace package, as installed in node_modules
// (dependencies and optionalDependencies, found the way Node resolves them from each package's
// real directory), with what an install would build: a package with an install, preinstall or
// postinstall script, or a binding.gyp, runs a native build (or a download) when installed.
// Shared by test/sdk-install.test.ts and scripts/report-shape.mjs.
import { existsSync, lstatSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import { dirname, join } from "node:path";

export const root = join(import.meta.dirname, "..");

/** The SDK packages: a user installs them into an application, so none may build anything. */
export const sdkPackages = ["@cuzkit/core", "@cuzkit/client", "@cuzkit/tuner", "@cuzkit/vast"];

/** Every workspace package: { name, dir } (dir absolute). */
export function workspacePackages() {
  const dirs = [
    join(root, "proto"),
    ...readdirSync(join(root, "packages")).map((name) => join(root, "packages", name)),
  ];
  return dirs.map((dir) => ({ name: JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).name, dir }));
}

function findInstalled(fromDir, name) {
  for (let dir = fromDir; ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", name);
    if (existsSync(join(candidate, "package.json"))) return realpathSync(candidate);
    if (dirname(dir) === dir) return undefined;
  }
}

/** Why installing the package in `dir` builds something, or undefined when it does not. */
export function installBuild(dir) {
  const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  const scripts = ["preinstall", "install", "postinstall"].filter((name) => manifest.scripts?.[name]);
  if (scripts.length > 0) return `${scripts.join(", ")} script`;
  if (existsSync(join(dir, "binding.gyp")) || manifest.gypfile === true)
    return "binding.gyp (node-gyp build)";
  return undefined;
}

/**
 * The closure of the package `name`: [{ name, version, dir, workspace, build }], itself excluded.
 * An optional dependency that is not installed is skipped (an install may skip it too).
 */
export function dependencyClosure(name) {
  const start = workspacePackages().find((pkg) => pkg.name === name);
  if (start === undefined) throw new Error(`no workspace package ${name}`);
  const workspaceDirs = new Set(workspacePackages().map((pkg) => pkg.dir));
  const seen = new Map();
  const queue = [realpathSync(start.dir)];
  while (queue.length > 0) {
    const dir = queue.shift();
    const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    const deps = { ...manifest.dependencies, ...manifest.optionalDependencies };
    for (const dep of Object.keys(deps)) {
      const depDir = findInstalled(dir, dep);
      if (depDir === undefined) {
        if (manifest.optionalDependencies?.[dep] !== undefined) continue;
        throw new Error(`${manifest.name}: dependency ${dep} is not installed (run pnpm install)`);
      }
      if (seen.has(depDir) || depDir === realpathSync(start.dir)) continue;
      const depManifest = JSON.parse(readFileSync(join(depDir, "package.json"), "utf8"));
      seen.set(depDir, {
        name: depManifest.name,
        version: depManifest.version,
        dir: depDir,
        workspace: workspaceDirs.has(depDir),
        build: installBuild(depDir),
      });
      queue.push(depDir);
    }
  }
  return [...seen.values()];
}

/** Bytes of the files under `dir`, nested node_modules and links excluded. */
export function directoryBytes(dir) {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === "node_modules" || entry.isSymbolicLink()) continue;
    const path = join(dir, entry.name);
    total += entry.isDirectory() ? directoryBytes(path) : lstatSync(path).size;
  }
  return total;
}

/** Bytes a workspace package ships: its `files` (dist when built), package.json, or undefined when dist/ is not built. */
export function publishedBytes(dir) {
  const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  if (!existsSync(join(dir, "dist"))) return undefined;
  let total = lstatSync(join(dir, "package.json")).size;
  for (const file of manifest.files ?? []) {
    const path = join(dir, file);
    if (!existsSync(path)) continue;
    total += lstatSync(path).isDirectory() ? directoryBytes(path) : lstatSync(path).size;
  }
  return total;
}

/**
 * What installing the package costs: { dependencies (count), dependencyBytes (third-party files),
 * ownBytes (the workspace packages' published files, undefined when any is not built), builds }.
 */
export function installSize(name) {
  const closure = dependencyClosure(name);
  const self = workspacePackages().find((pkg) => pkg.name === name);
  let dependencyBytes = 0;
  let ownBytes = publishedBytes(self.dir);
  for (const dep of closure) {
    if (!dep.workspace) dependencyBytes += directoryBytes(dep.dir);
    else {
      const bytes = publishedBytes(dep.dir);
      ownBytes = ownBytes === undefined || bytes === undefined ? undefined : ownBytes + bytes;
    }
  }
  const builds = closure.filter((dep) => dep.build !== undefined);
  return { dependencies: closure.length, dependencyBytes, ownBytes, builds };
}

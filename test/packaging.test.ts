import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// Every package must work when installed from the registry: build, pack with pnpm (which
// rewrites workspace: versions), install the tarballs into an empty npm project, then import
// each entry point as ESM and with require(), and run the `cuzkit` binary.
const root = join(import.meta.dirname, "..");
const packageDirs = ["proto", ...readdirSync(join(root, "packages")).map((name) => `packages/${name}`)];
const packageNames = packageDirs.map(
  (dir) => JSON.parse(readFileSync(join(root, dir, "package.json"), "utf8")).name as string,
);
let scratch = "";
// better-sqlite3 (the fleet's store) compiles from source here, minutes on 2 cores: the consumer
// links the copy the workspace already built, and the install runs no scripts (no other
// dependency of ours needs one).
const builtSqlite = join(
  createRequire(join(root, "packages/fleet/package.json")).resolve("better-sqlite3/package.json"),
  "..",
);

const run = (command: string, args: string[], cwd: string) =>
  execFileSync(command, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 300_000 });

describe("packages as published", () => {
  beforeAll(() => {
    scratch = mkdtempSync(join(tmpdir(), "cuzkit-pack-"));
    run("pnpm", ["run", "build"], root);
    for (const dir of packageDirs) run("pnpm", ["pack", "--pack-destination", scratch], join(root, dir));
    const tarballs = readdirSync(scratch).filter((file) => file.endsWith(".tgz"));
    writeFileSync(
      join(scratch, "package.json"),
      JSON.stringify({ name: "consumer", private: true, type: "module" }),
    );
    run(
      "npm",
      [
        "install",
        "--no-audit",
        "--no-fund",
        "--loglevel=error",
        "--ignore-scripts",
        builtSqlite,
        ...tarballs.map((file) => `./${file}`),
      ],
      scratch,
    );
  }, 600_000);

  afterAll(() => {
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it("passes publint", () => {
    for (const dir of packageDirs) {
      const output = run("npx", ["publint", "--strict", join(root, dir)], root);
      expect(output, dir).not.toMatch(/error|warning/i);
    }
  });

  it.each(packageNames)("%s imports as ESM and with require()", (name) => {
    const esm = run(
      "node",
      [
        "--input-type=module",
        "-e",
        `const m = await import(${JSON.stringify(name)}); console.log(Object.keys(m).length);`,
      ],
      scratch,
    );
    expect(Number(esm.trim())).toBeGreaterThan(0);
    const cjs = run(
      "node",
      ["-e", `const m = require(${JSON.stringify(name)}); console.log(Object.keys(m).length);`],
      scratch,
    );
    expect(Number(cjs.trim())).toBeGreaterThan(0);
  });

  it("installs a working cuzkit binary", () => {
    const help = run(join(scratch, "node_modules", ".bin", "cuzkit"), ["--help"], scratch);
    expect(help).toMatch(/Usage: cuzkit/);
    for (const command of ["tune", "sim", "bench", "prove", "status", "vast", "demo"])
      expect(help).toContain(command);
  });
});

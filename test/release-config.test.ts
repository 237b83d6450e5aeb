import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs script without declarations
import { publicPackages } from "../scripts/pack-packages.mjs";

const root = join(import.meta.dirname, "..");

describe("release configuration", () => {
  it("versions every public package together, and nothing else", () => {
    const config = JSON.parse(readFileSync(join(root, ".changeset", "config.json"), "utf8")) as {
      fixed: string[][];
      access: string;
    };
    const names = (publicPackages() as { name: string }[]).map((pkg) => pkg.name).sort();
    expect(config.fixed).toHaveLength(1);
    expect([...(config.fixed[0] ?? [])].sort()).toEqual(names);
    expect(config.access).toBe("public");
  });

  it("has scripts for changesets, the package checks and the release dry run", () => {
    const scripts = (
      JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { scripts: Record<string, string> }
    ).scripts;
    expect(scripts["check:packages"]).toBe("node scripts/check-packages.mjs");
    expect(scripts.release).toBe("node scripts/release.mjs");
    expect(scripts["version-packages"]).toMatch(/^changeset version/);
    expect(readFileSync(join(root, ".ci", "run"), "utf8")).toMatch(/\npnpm check:packages --skip-build\n/);
  });
});

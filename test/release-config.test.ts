import { readdirSync, readFileSync } from "node:fs";
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

  it("has pending changesets that name public packages and a bump, with a summary", () => {
    const names = new Set((publicPackages() as { name: string }[]).map((pkg) => pkg.name));
    const files = readdirSync(join(root, ".changeset")).filter((f) => f.endsWith(".md") && f !== "README.md");
    for (const file of files) {
      const text = readFileSync(join(root, ".changeset", file), "utf8");
      // Front matter, then the changelog text. A formatter that reads the file as Markdown turns
      // a one-line front matter into a heading, which changesets then ignores.
      const match = /^---\n((?:"[^"]+": (?:patch|minor|major)\n)+)---\n\n(\S[\s\S]*)$/.exec(text);
      expect(
        match,
        `${file}: front matter of "package": bump lines, a blank line, then the summary`,
      ).not.toBeNull();
      const bumped = (match?.[1] ?? "")
        .trim()
        .split("\n")
        .map((line) => line.split('"')[1] ?? "");
      for (const name of bumped) expect(names, `${file} names ${name}`).toContain(name);
    }
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

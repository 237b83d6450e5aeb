import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { typecheckProject } from "./support/typecheck.js";

// Every ```ts block of every README is type-checked against the packages' sources, with the
// project's own strict settings: an example that drifts from the API (a renamed option, a
// missing import) fails here. Each block is written under its package's .tmp/ (ignored by git),
// so it resolves that package's dependencies, and all are checked in one program. Unused names
// are allowed: an example may show a value without using it.
const root = join(import.meta.dirname, "..");
const scratch = join(root, ".tmp", "readme-examples");
const scratchOf = (readme: string) => join(root, dirname(readme), ".tmp", "readme-examples");

function readmes(): string[] {
  return execFileSync("git", ["ls-files", "*README.md"], { cwd: root, encoding: "utf8" })
    .split("\n")
    .filter((path) => path !== "");
}

function tsBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((match) => match[1] ?? "");
}

describe("README examples", () => {
  it("every TypeScript block type-checks", () => {
    for (const readme of readmes()) rmSync(scratchOf(readme), { recursive: true, force: true });
    mkdirSync(scratch, { recursive: true });
    const files: string[] = [];
    for (const readme of readmes()) {
      tsBlocks(readFileSync(join(root, readme), "utf8")).forEach((block, index) => {
        const dir = scratchOf(readme);
        mkdirSync(dir, { recursive: true });
        const path = join(dir, `README_${index + 1}.ts`);
        // Each block is a module of its own: its top-level names do not clash with another's.
        writeFileSync(path, `${block}\nexport {};\n`);
        files.push(path);
      });
    }
    expect(files.length).toBeGreaterThanOrEqual(7);
    writeFileSync(
      join(scratch, "tsconfig.json"),
      JSON.stringify({
        extends: "../../tsconfig.json",
        files,
        include: [],
        compilerOptions: { noEmit: true, noUnusedLocals: false },
      }),
    );
    // In this process, and only the examples' own types are checked: the packages' sources they
    // import are the project's, which `pnpm typecheck` checks (tsc over tsconfig.json).
    const output = typecheckProject(join(scratch, "tsconfig.json"), files);
    expect(output).toBe("");
  }, 180_000);
});

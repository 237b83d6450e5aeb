import { readFileSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// `cuzkit agent` (and `--ui-listen`, its page) loads @cuzkit/fleet/agent only: on a rented machine
// it must start without the manager, the store or their database drivers. This walks the runtime
// imports of the entry's sources (`import type` is erased, so it is not followed).

const src = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** The runtime module specifiers of one source file: static imports, re-exports and import(). */
function runtimeImports(text: string): string[] {
  const specifiers: string[] = [];
  const statement = /(?:^|\n)\s*(import|export)\s+(type\s+)?(?:[^"';]*?\s+from\s+)?["']([^"']+)["']/g;
  for (const match of text.matchAll(statement)) {
    if (match[2] === undefined) specifiers.push(match[3] as string);
  }
  for (const match of text.matchAll(/import\(\s*["']([^"']+)["']\s*\)/g)) specifiers.push(match[1] as string);
  return specifiers;
}

/** Every source file reachable from `entry` at runtime, and the packages they import. */
function moduleGraph(entry: string): { files: string[]; packages: string[] } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const pending = [entry];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (files.has(file)) continue;
    files.add(file);
    for (const specifier of runtimeImports(readFileSync(file, "utf8"))) {
      if (specifier.startsWith(".")) pending.push(resolve(dirname(file), specifier.replace(/\.js$/, ".ts")));
      else packages.add(specifier);
    }
  }
  return { files: [...files].map((file) => relative(src, file)), packages: [...packages] };
}

describe("the agent's entry", () => {
  it("reads runtime imports and skips type-only ones", () => {
    const text = `import type { A } from "./a.js";\nimport { b } from "./b.js";\nexport { c } from "./c.js";\nexport type { D } from "./d.js";\nimport "./e.js";\nconst f = await import("./f.js");`;
    expect(runtimeImports(text)).toEqual(["./b.js", "./c.js", "./e.js", "./f.js"]);
  });

  it("reaches neither the manager, the store nor a database driver, its page included", () => {
    const { files, packages } = moduleGraph(resolve(src, "agent/index.ts"));
    expect(files).toContain("agent/agent-page.ts");
    expect(files.filter((file) => file.startsWith("manager/") || file.startsWith("store/"))).toEqual([]);
    expect(packages.filter((name) => name === "pg" || name === "better-sqlite3")).toEqual([]);
  });
});

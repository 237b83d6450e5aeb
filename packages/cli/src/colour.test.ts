import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { colourEnabled } from "./colour.js";
import { createTable } from "./table.js";
import { memorySink } from "./test-support/memory-io.js";

const terminal = memorySink(true);
const pipe = memorySink(false);

describe("colourEnabled", () => {
  it.each([
    ["a terminal", terminal, {}, true],
    ["a pipe or file", pipe, {}, false],
    ["NO_COLOR on a terminal", terminal, { NO_COLOR: "1" }, false],
    ["an empty NO_COLOR (ignored, as no-color.org says)", terminal, { NO_COLOR: "" }, true],
    ["FORCE_COLOR=1 on a pipe", pipe, { FORCE_COLOR: "1" }, true],
    ["FORCE_COLOR=0 on a terminal", terminal, { FORCE_COLOR: "0" }, false],
    ["FORCE_COLOR=false on a terminal", terminal, { FORCE_COLOR: "false" }, false],
    [
      "FORCE_COLOR and NO_COLOR (FORCE_COLOR wins, as in Node)",
      pipe,
      { FORCE_COLOR: "1", NO_COLOR: "1" },
      true,
    ],
  ])("%s", (_name, stream, env, expected) => {
    expect(colourEnabled(stream, env as Record<string, string>)).toBe(expected);
  });
});

describe("tables", () => {
  it("carry no escape codes without colour, and a bold (never red) header with it", () => {
    const plain = createTable(["GPU", "name"], { colour: false });
    plain.push([0, "RTX 3090"]);
    expect(plain.toString()).not.toContain("\u001b[");
    expect(plain.toString()).toContain("GPU");

    const coloured = createTable(["GPU", "name"], { colour: true });
    coloured.push([0, "RTX 3090"]);
    const text = coloured.toString();
    expect(text).toContain("\u001b[1mGPU\u001b[22m");
    // No foreground colour at all (30-37): a red header reads as an error.
    for (let code = 30; code <= 37; code++) expect(text).not.toContain(`\u001b[${code}m`);
  });

  it("are all made by createTable (cli-table3's own style paints headers red)", () => {
    const sources: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") && entry.name !== "table.ts")
          sources.push(path);
      }
    };
    walk(import.meta.dirname);
    const direct = sources.filter((path) => /new Table\(/.test(readFileSync(path, "utf8")));
    expect(direct).toEqual([]);
  });
});

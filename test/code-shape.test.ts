import { describe, expect, it } from "vitest";
import { fileShape, longFunctions } from "../scripts/code-shape.mjs";
import { mutationScores } from "../scripts/mutation-scores.mjs";

// The shape report's rules (`pnpm report:shape`): what counts as a long function or file, and
// the `// shape-exception:` marker that keeps one on purpose.
const body = (lines: number) => Array.from({ length: lines }, (_, i) => `  const v${i} = ${i};`).join("\n");

describe("code shape", () => {
  it("finds functions over 80 lines, declared or assigned, and honours the marker above them", () => {
    const text = [
      "/** Doc. */",
      `export function long() {\n${body(80)}\n}`,
      "// shape-exception: one state machine, clearer whole",
      `function kept() {\n${body(80)}\n}`,
      `const arrow = () => {\n${body(80)}\n};`,
      "// shape-exception: a table",
      `export const table = () => {\n${body(80)}\n};`,
      `function short() {\n${body(78)}\n}`,
      "// shape-exception: above the doc comment also counts",
      "/** Doc. */",
      `function documented() {\n${body(80)}\n}`,
      "// shape-exception: a route",
      `app.get("/", async () => {\n${body(80)}\n});`,
      "// shape-exception: not directly above",
      "",
      `function apart() {\n${body(80)}\n}`,
    ].join("\n");
    expect(longFunctions(text).map(({ name, lines, marked }) => [name, lines, marked])).toEqual([
      ["long", 82, false],
      ["kept", 82, true],
      ["arrow", 82, false],
      ["table", 82, true],
      ["documented", 82, true],
      ["(anonymous)", 82, true],
      ["apart", 82, false],
    ]);
  });

  it("counts a file's lines and reads the marker on its first line only", () => {
    const long = `${body(401)}\n`;
    expect(fileShape(long)).toEqual({ lines: 401, long: true, marked: false });
    expect(fileShape(`// shape-exception: generated tables\n${long}`).marked).toBe(true);
    expect(fileShape(`${body(400)}\n`).long).toBe(false);
    expect(fileShape(`const a = 1;\n// shape-exception: too late\n${long}`).marked).toBe(false);
  });

  it("scores mutants per package as Stryker does: timeouts kill, no coverage survives", () => {
    const report = {
      files: {
        "packages/core/src/a.ts": {
          mutants: [
            { status: "Killed" },
            { status: "Timeout" },
            { status: "Survived" },
            { status: "NoCoverage" },
          ],
        },
        "packages/core/src/b.ts": { mutants: [{ status: "Killed" }, { status: "CompileError" }] },
      },
    };
    expect(mutationScores(report)).toEqual([
      { package: "packages/core", killed: 3, survived: 1, noCoverage: 1, other: 1, score: 0.6 },
    ]);
  });
});

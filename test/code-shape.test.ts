import { describe, expect, it } from "vitest";
import { fileShape, longFunctions } from "../scripts/code-shape.mjs";
import {
  mergeMutationSummary,
  mutationKillRates,
  mutationRateProblems,
} from "../scripts/mutation-summary.mjs";

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

  it("keeps each run's kill counts, adds a package's runs up, and flags a rate under 80%", () => {
    const first = mergeMutationSummary(
      undefined,
      {
        fleet: { package: "fleet", killed: 90, survived: 2, equivalent: 3 },
        "fleet-lease": { package: "fleet", killed: 8, survived: 0, equivalent: 0 },
        tuner: { package: "tuner", killed: 70, survived: 30, equivalent: 1 },
      },
      "2026-12-01T10:00:00.000Z",
      "aaaaaaa",
    );
    // A later run of one package replaces its row only; the others keep their time and commit.
    const later = mergeMutationSummary(
      first,
      { tuner: { package: "tuner", killed: 85, survived: 15, equivalent: 1 } },
      "2026-12-02T10:00:00.000Z",
      "bbbbbbb",
    );
    expect(later.runs.fleet).toEqual({
      package: "fleet",
      killed: 90,
      survived: 2,
      equivalent: 3,
      at: "2026-12-01T10:00:00.000Z",
      commit: "aaaaaaa",
    });
    const rates = mutationKillRates(later);
    expect(rates?.map((r) => [r.package, r.killed, r.survived, r.rate])).toEqual([
      ["fleet", 98, 2, 0.98],
      ["tuner", 85, 15, 0.85],
    ]);
    expect(mutationRateProblems(mutationKillRates(first))).toEqual([
      "mutation kill rate: tuner 70.0%, budget 80%",
    ]);
    expect(mutationKillRates(undefined)).toBeUndefined();
  });
});

import { describe, expect, it } from "vitest";
import { budgetProblems, entryNames, readBudgets } from "../scripts/entry-names.mjs";

// Each package entry holds what its users call, in a named list: the number of names it exports
// (values and types) stays within test/entry-budgets.json. Raising a budget is a decision to make
// in review; lower it when an entry shrinks.
describe("entry budgets", () => {
  const entries = entryNames() as { entry: string; names: string[]; exportStar: boolean }[];

  it("every entry is within its name budget and lists its names", () => {
    expect(budgetProblems(entries, readBudgets())).toEqual([]);
  });

  it("finds every entry, names and `export *` included", () => {
    const byEntry = new Map(entries.map((entry) => [entry.entry, entry]));
    expect(byEntry.get("@cuzkit/core")?.names).toContain("CuzkitError");
    expect(byEntry.get("@cuzkit/core")?.names).toContain("HardwareSpec");
    expect(byEntry.get("@cuzkit/client/testing")?.names).toEqual(["TcpProxy", "startTcpProxy"]);
    expect(byEntry.size).toBeGreaterThanOrEqual(16);
  });

  it("reports an entry over its budget, one without a budget, and an `export *`", () => {
    const sample = [
      { entry: "a", names: ["x", "y"], exportStar: false },
      { entry: "b", names: ["x"], exportStar: true },
    ];
    expect(budgetProblems(sample, { budgets: { a: 1, gone: 3 } })).toEqual([
      "a: 2 names, budget 1",
      "b: 1 names and no budget in test/entry-budgets.json",
      "b: `export *` (write a named export list)",
      "gone: a budget for an entry that does not exist",
    ]);
  });
});

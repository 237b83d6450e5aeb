import { describe, expect, it } from "vitest";
import { configFrom } from "./commands/fleet/flags.js";
import { parseSafetyMargin } from "./commands/tune.js";
import { createTable } from "./table.js";

// The commands pass each flag's value as it is (undefined when not given): that must mean "not given".

describe("a flag that was not given keeps the default (or the saved value)", () => {
  it("fleet: no --deadline-margin keeps the margin `fleet serve` saved", () => {
    const config = configFrom(
      { fleet: "default", deadline: [], env: [], minProofsPerHour: 30, deadlineMargin: undefined },
      { minProofsPerHour: 20, deadlines: { margin: 2, overridesMs: { params: 60_000 } } },
      ["params"],
    );
    expect(config.deadlines?.margin).toBe(2);
    expect(config.deadlines?.overridesMs).toEqual({ params: 60_000 });
    expect(config.minProofsPerHour).toBe(30);
  });

  it("tune: no --safety-margin leaves the tuner's margin options unset", () => {
    expect(parseSafetyMargin(undefined)).toEqual({});
  });

  it("a table without a head has no header row, like cli-table3's default", () => {
    const table = createTable(undefined, { colour: false });
    table.push(["a", "b"]);
    expect(table.toString().split("\n")).toHaveLength(3); // top border, the row, bottom border
    expect(table.toString()).not.toMatch(/undefined/);
  });
});

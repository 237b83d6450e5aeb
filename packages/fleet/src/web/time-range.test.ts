import { describe, expect, it } from "vitest";
import { inRange } from "./time-range.js";

describe("inRange", () => {
  const series = {
    times: [100, 200, 300, 400],
    fleet: [1, 2, 3, 4],
    lines: [{ id: "a", label: "a", values: [1, null, 3, 4] }],
    name: "kept",
  };

  it("keeps the points from the start on, with the value in force at the start", () => {
    expect(inRange(series, 250)).toEqual({
      times: [250, 300, 400],
      fleet: [2, 3, 4],
      lines: [{ id: "a", label: "a", values: [null, 3, 4] }],
      name: "kept",
    });
  });

  it("keeps everything for 0 or a start before the first point, and the last point after the end", () => {
    expect(inRange(series, 0)).toEqual(series);
    expect(inRange(series, 50)).toEqual(series);
    expect(inRange(series, 500).times).toEqual([400]);
  });
});

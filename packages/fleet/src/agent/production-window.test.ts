import { describe, expect, it } from "vitest";
import { productionWindow } from "./production-window.js";

describe("productionWindow", () => {
  it.each([
    ["the first reading", undefined, { total: 10, at: 60_000 }, undefined],
    [
      "30 proofs in 30 minutes",
      { total: 10, at: 0 },
      { total: 40, at: 1_800_000 },
      { proofs: 30, windowMs: 1_800_000 },
    ],
    [
      "no proofs is a report too (a stalled machine)",
      { total: 10, at: 0 },
      { total: 10, at: 600_000 },
      { proofs: 0, windowMs: 600_000 },
    ],
    ["a window under a minute", { total: 10, at: 0 }, { total: 11, at: 59_999 }, undefined],
    ["a counter that went back (restart)", { total: 50, at: 0 }, { total: 3, at: 600_000 }, undefined],
  ])("%s", (_name, previous, current, expected) => {
    expect(productionWindow(previous, current)).toEqual(expected);
  });
});

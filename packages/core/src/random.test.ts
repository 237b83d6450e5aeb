import { describe, expect, it } from "vitest";
import { seededRandom } from "./random.js";

describe("seededRandom", () => {
  it("repeats a seed exactly, differs between seeds, and stays in [0, 1)", () => {
    const draws = (seed: number) => Array.from({ length: 1000 }, seededRandom(seed));
    const a = draws(7);
    expect(draws(7)).toEqual(a);
    expect(draws(8)).not.toEqual(a);
    expect(a.every((x) => x >= 0 && x < 1)).toBe(true);
    // Uniform enough for a simulation: the mean of 1000 draws is near 1/2.
    expect(Math.abs(a.reduce((s, x) => s + x, 0) / a.length - 0.5)).toBeLessThan(0.05);
  });
});

import { describe, expect, it } from "vitest";
import { runEconomyDemo } from "./economy-demo.js";

describe("the economics demo", () => {
  it("learns from what it measures and beats ranking by specs alone", () => {
    const lines: string[] = [];
    const demo = runEconomyDemo({ seed: 3, write: (l) => lines.push(l) });
    const text = lines.join("\n");
    expect(text).toContain("ranking before any measurement");
    expect(text).toContain("ranking after measurement");
    expect(text).toContain("learnt calibration");
    // Some machine was kept with its measured rate, and something was given up with why.
    expect(demo.events.some((e) => e.kind === "kept" && /MET: \d/.test(e.reason))).toBe(true);
    expect(demo.events.some((e) => ["rejected", "failed", "died", "destroy"].includes(e.kind))).toBe(true);
    // The fleet never rents again a machine it saw fail or fall below the minimum.
    const bad = new Set(
      demo.events
        .filter((e) => e.kind === "failed" || e.kind === "died" || e.kind === "rejected")
        .map((e) => e.offerId),
    );
    const rentsAfter = demo.events.filter(
      (e, i) =>
        e.kind === "rent" &&
        bad.has(e.offerId) &&
        demo.events.slice(0, i).some((p) => p.offerId === e.offerId && p.kind !== "rent"),
    );
    expect(rentsAfter).toEqual([]);
    // Learning pays: cheaper per proof than specs alone, and the oracle is a floor.
    expect(demo.learning.costPer1000).toBeLessThan(demo.specOnly.costPer1000);
    expect(demo.oracle.costPer1000).toBeLessThanOrEqual(demo.learning.costPer1000);
    expect(demo.learning.knowledge.calibration.size).toBeGreaterThan(0);
  });
});

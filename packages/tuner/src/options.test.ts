import { GiB } from "@cuzkit/core";
import { describe, expect, it } from "vitest";
import { resolveTuneOptions, safetyMarginBytes, tuneDefaults } from "./options.js";

describe("resolveTuneOptions", () => {
  it("fills the documented defaults", () => {
    const options = resolveTuneOptions();
    expect(options).toMatchObject({
      dialect: "budget",
      workloadName: "porep",
      workload: { kind: "porep", alsoResident: [] },
      safetyMarginFraction: 0.1,
      minSafetyMarginBytes: 4 * GiB,
      concurrency: undefined,
      maxConcurrency: tuneDefaults.maxConcurrency,
      gpuThreadsCap: 32,
      proveTimeoutFactor: 1.5,
    });
  });

  it("takes presets and explicit kinds", () => {
    expect(resolveTuneOptions({ workload: "mix" }).workload).toEqual({
      kind: "porep",
      alsoResident: ["wpost", "winning", "snap"],
    });
    const custom = resolveTuneOptions({ workload: { kind: "snap", alsoResident: ["wpost"] } });
    expect(custom.workloadName).toBe("snap+wpost");
    expect(() => resolveTuneOptions({ workload: { kind: "c2" as "snap" } })).toThrow(/unknown proof kind/);
  });

  it("keeps the larger of the fraction and the floor as the margin, rounded up", () => {
    const options = resolveTuneOptions();
    expect(safetyMarginBytes(256 * GiB, options)).toBe(Math.ceil(25.6 * GiB));
    expect(safetyMarginBytes(20 * GiB, options)).toBe(4 * GiB);
  });

  it("rejects impossible values", () => {
    expect(() => resolveTuneOptions({ safetyMarginFraction: -0.1 })).toThrow(/fraction/);
    expect(() => resolveTuneOptions({ minSafetyMarginBytes: Number.NaN })).toThrow(/minimum safety margin/);
    expect(() => resolveTuneOptions({ maxConcurrency: 1.5 })).toThrow(/maxConcurrency/);
    expect(() => resolveTuneOptions({ proveTimeoutFactor: 0.5 })).toThrow(/proveTimeoutFactor/);
  });
});

import { describe, expect, it } from "vitest";
import { curioRatesText } from "./curio-rate.js";

describe("curioRatesText", () => {
  it("names each proof type with its rate and only the failures there were", () => {
    expect(
      curioRatesText([
        { taskType: "PoRep", proofsPerHour: 12.34, failures: 1, at: 0 },
        { taskType: "PSProve", proofsPerHour: 0.96, failures: 0, at: 0 },
      ]),
    ).toBe("PoRep 12.3 (1 failed), PSProve 1.0");
  });

  it("shows the placeholder for a machine Curio has no rate of", () => {
    expect(curioRatesText([])).toBe("-");
    expect(curioRatesText([], "–")).toBe("–");
  });
});

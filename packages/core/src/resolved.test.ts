import { describe, expect, it } from "vitest";
import { withDefaults } from "./resolved.js";

interface Options {
  retries?: number | undefined;
  delayMs?: number | undefined;
}

describe("withDefaults", () => {
  it("keeps a default when the option is passed as undefined (a spread would erase it)", () => {
    const merged = withDefaults<Options>({ retries: 4, delayMs: 100 }, { retries: undefined, delayMs: 5 });
    expect(merged).toStrictEqual({ retries: 4, delayMs: 5 });
  });

  it("returns the defaults when there are no overrides, without sharing the object", () => {
    const defaults = { retries: 4, delayMs: 100 };
    const merged = withDefaults<Options>(defaults, undefined);
    expect(merged).toStrictEqual(defaults);
    expect(merged).not.toBe(defaults);
  });
});

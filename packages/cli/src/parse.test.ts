import { describe, expect, it } from "vitest";
import {
  durationText,
  parseDurationMs,
  parsePositiveNumber,
  parseSize,
  parseWholeNumber,
  wholeNumberOption,
} from "./parse.js";

const what = { what: "--timeout" };

describe("parseDurationMs", () => {
  it.each([
    ["90s", 90_000],
    ["30m", 1_800_000],
    ["1h", 3_600_000],
    ["1500ms", 1500],
    ["0.5s", 500],
    ["1h30m", 5_400_000],
    ["1m30s", 90_000],
    ["2h15m10s", 8_110_000],
    ["1s500ms", 1500],
    [" 5s ", 5000],
  ])("reads %s", (text, ms) => expect(parseDurationMs(text, what)).toBe(ms));
  it.each(["soon", "0s", "-5m", "1d", "", "5s x", "1h 30m", "h", "0ms0s"])(
    "rejects %j naming the flag, with an example",
    (text) => {
      expect(() => parseDurationMs(text, what)).toThrow(/^--timeout must be a duration above 0 with a unit/);
      expect(() => parseDurationMs(text, { what: "--timeout", example: "45m" })).toThrow(
        expect.objectContaining({ code: "INVALID_INPUT", hint: "such as --timeout 45m" }),
      );
    },
  );
  it.each(["5", "250", "0.5", " 30 "])(
    "refuses the bare number %j with a unit hint, never milliseconds",
    (text) => {
      expect(() => parseDurationMs(text, { what: "--interval" })).toThrow(
        expect.objectContaining({
          code: "INVALID_INPUT",
          message: `--interval needs a unit, got "${text}"`,
          hint: `${text.trim()}s? durations need a unit: 500ms, 5s, 2m, 1h30m`,
        }),
      );
    },
  );
  it("refuses a duration past a timer's 24-day limit, which Node would fire at once", () => {
    expect(parseDurationMs("596h", what)).toBe(596 * 3_600_000);
    expect(() => parseDurationMs("1000h", what)).toThrow(
      expect.objectContaining({
        code: "INVALID_INPUT",
        message: "--timeout 1000h is longer than the 24-day limit of a timer",
      }),
    );
  });
  it("writes back what it reads, for help text", () => {
    for (const ms of [1_800_000, 3_600_000, 7_200_000, 10_000, 1500, 250]) {
      expect(parseDurationMs(durationText(ms), what)).toBe(ms);
    }
    expect(durationText(30 * 60_000)).toBe("30m");
    expect(durationText(10_000)).toBe("10s");
    expect(durationText(2 * 3_600_000)).toBe("2h");
  });
});

describe("parseWholeNumber", () => {
  it("reads whole numbers at or above the minimum", () => {
    expect(parseWholeNumber("32", { what: "--cores" })).toBe(32);
    expect(parseWholeNumber(" 0 ", { what: "--post-slots", min: 0 })).toBe(0);
  });
  it.each(["0", "-1", "1.5", "2x", "", "99999999999999999999"])("rejects %j", (text) => {
    expect(() => parseWholeNumber(text, { what: "--cores", example: "32" })).toThrow(
      expect.objectContaining({
        code: "INVALID_INPUT",
        message: `--cores must be a whole number of at least 1, got "${text}"`,
        hint: "such as --cores 32",
      }),
    );
  });
  it("suggests the flag's own example, not another flag's (--limit 0 is not told 'such as 1001')", () => {
    const limit = () => parseWholeNumber("0", { what: "--limit", example: "20" });
    expect(limit).toThrow(expect.objectContaining({ hint: "such as --limit 20" }));
    // Without an example, the minimum is the suggestion.
    expect(() => parseWholeNumber("x", { what: "--tail", min: 5 })).toThrow(
      expect.objectContaining({ hint: "such as --tail 5" }),
    );
  });
  it("binds to a flag for commander, keeping the typed error", () => {
    expect(wholeNumberOption("--count", 1, "12")("3")).toBe(3);
    expect(() => wholeNumberOption("--count", 1, "12")("0")).toThrow(
      expect.objectContaining({ code: "INVALID_INPUT", hint: "such as --count 12" }),
    );
  });
});

describe("parsePositiveNumber and parseSize", () => {
  it("reads fractions above 0 and refuses the rest", () => {
    expect(parsePositiveNumber("0.01", { what: "--time-scale" })).toBe(0.01);
    for (const text of ["0", "-1", "", "x", "Infinity"]) {
      expect(() => parsePositiveNumber(text, { what: "--time-scale" })).toThrow(
        /--time-scale must be a number above 0/,
      );
    }
  });
  it("needs a unit on every size", () => {
    expect(parseSize("256GiB", { what: "--ram" })).toBe(256 * 2 ** 30);
    expect(() => parseSize("256", { what: "--ram" })).toThrow(/--ram size "256" has no unit/);
    expect(() => parseSize("256G", { what: "--ram" })).toThrow(/ambiguous unit "G"/);
  });
});

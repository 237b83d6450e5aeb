import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  bytesToGigabytes,
  bytesToMebibytes,
  cuzkSizeFallbackBytes,
  formatBytes,
  GiB,
  gigabytesToBytes,
  MiB,
  mebibytesToBytes,
  parseByteSize,
  parseCuzkSize,
  parseSizeWithUnit,
  toCuzkSize,
} from "./bytes.js";
import { InvalidInputError } from "./errors.js";

describe("parseByteSize", () => {
  it.each([
    ["256GiB", 256 * GiB],
    ["251 GB", 251e9],
    ["125829120 KiB", 125829120 * 1024],
    ["1.5TiB", 1.5 * 1024 * GiB],
    ["512G", 512e9],
    ["64mib", 64 * MiB],
    ["4096", 4096],
  ])("reads %s", (text, bytes) => {
    expect(parseByteSize(text)).toBe(bytes);
  });

  it.each(["", "GiB", "12 parsecs", "-5GiB", "1,5GiB", "abc"])("rejects %j with a hint", (text) => {
    expect(() => parseByteSize(text)).toThrow(InvalidInputError);
    try {
      parseByteSize(text);
    } catch (error) {
      expect((error as InvalidInputError).hint).toMatch(/256GiB/);
    }
  });
});

describe("parseSizeWithUnit (command-line sizes)", () => {
  it("reads sizes with a unit", () => {
    expect(parseSizeWithUnit("256GiB")).toBe(256 * GiB);
    expect(parseSizeWithUnit("251 GB")).toBe(251e9);
    expect(parseSizeWithUnit("2TiB")).toBe(2048 * GiB);
  });

  it.each([
    ["256", /has no unit/, /did you mean "256GiB"\?/],
    ["256G", /ambiguous unit "G"/, /256GiB .* or 256GB/],
    ["1t", /ambiguous unit "t"/, /1TiB .* or 1TB/],
    ["lots", /cannot read the size "lots"/, /256GiB/],
  ])("refuses %j", (text, message, hint) => {
    try {
      parseSizeWithUnit(text, "size");
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(InvalidInputError);
      expect((error as InvalidInputError).message).toMatch(message);
      expect((error as InvalidInputError).hint).toMatch(hint);
    }
  });
});

describe("formatBytes", () => {
  it("uses binary units people expect", () => {
    expect(formatBytes(251 * GiB)).toBe("251.0 GiB");
    expect(formatBytes(51 * MiB)).toBe("51.0 MiB");
    expect(formatBytes(512)).toBe("512 B");
  });
});

describe("cuzk size strings: parseCuzkSize mirrors config.rs parse_size", () => {
  // One row per branch of curio extern/cuzk/cuzk-core/src/config.rs parse_size (e0294b0f),
  // including the cases of its own test_parse_size.
  it.each([
    // its own tests
    ["50GiB", 50 * GiB, true],
    ["140GiB", 140 * GiB, true],
    ["626MiB", 626 * MiB, true],
    // suffixes, in the order the daemon tries them
    ["100GB", 100e9, true],
    ["512MB", 512e6, true],
    ["1234", 1234, true],
    ["0GiB", 0, true],
    // trim outside, trim between number and suffix, a leading "+" (Rust's u64 parser takes it)
    [" 256GiB ", 256 * GiB, true],
    ["256 GiB", 256 * GiB, true],
    ["+256GiB", 256 * GiB, true],
    ["\t64 MiB\n", 64 * MiB, true],
    ["  4096  ", 4096, true],
    // fallbacks: GiB and bytes -> 50 GiB, GB -> 50 GB, MiB and MB -> 0
    ["1.5GiB", 50 * GiB, false],
    ["GiB", 50 * GiB, false],
    ["-1GiB", 50 * GiB, false],
    ["+ 5GiB", 50 * GiB, false],
    ["1.5MiB", 0, false],
    ["x MiB", 0, false],
    ["1.5GB", 50e9, false],
    ["1.5MB", 0, false],
    ["1TiB", 50 * GiB, false],
    ["256G", 50 * GiB, false],
    ["256gib", 50 * GiB, false],
    ["auto", 50 * GiB, false],
    ["", 50 * GiB, false],
    ["18446744073709551616", 50 * GiB, false],
    // u64 wrap-around of the product, as in a release build
    ["17179869184GiB", 0, true],
  ] as const)("%j -> %d bytes (read as written: %s)", (text, bytes, readAsWritten) => {
    expect(parseCuzkSize(text)).toEqual({ bytes, readAsWritten });
  });

  it("falls back to 50 GiB", () => {
    expect(cuzkSizeFallbackBytes).toBe(50 * GiB);
  });

  it("emits whole GiB, rounding down so a budget never grows", () => {
    expect(toCuzkSize(240 * GiB)).toBe("240GiB");
    expect(toCuzkSize(240.9 * GiB)).toBe("240GiB");
    expect(toCuzkSize(300 * MiB)).toBe("300MiB");
    expect(toCuzkSize(1000)).toBe("1000");
    expect(() => toCuzkSize(Number.NaN)).toThrow(InvalidInputError);
    expect(() => toCuzkSize(-1)).toThrow(InvalidInputError);
  });

  it("never emits a string the daemon would turn into 50 GiB", () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 2 ** 50, noNaN: true }), (bytes) => {
        const text = toCuzkSize(bytes);
        const parsed = parseCuzkSize(text);
        expect(parsed.readAsWritten).toBe(true);
        expect(parsed.bytes).toBeLessThanOrEqual(bytes);
        // Rounding loses less than one unit of the unit chosen.
        expect(bytes - parsed.bytes).toBeLessThan(bytes >= GiB ? GiB : bytes >= MiB ? MiB : 1);
      }),
    );
  });
});

describe("parseByteSize requireUnit", () => {
  it("refuses a bare number, naming the flag and suggesting both units", () => {
    try {
      parseByteSize("24", { requireUnit: true, what: "--min-gpu-ram" });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(InvalidInputError);
      expect((error as InvalidInputError).message).toContain('--min-gpu-ram "24" has no unit');
      expect((error as InvalidInputError).hint).toContain('"24GiB"');
      expect((error as InvalidInputError).hint).toContain('"24GB"');
    }
    expect(parseByteSize("24GiB", { requireUnit: true })).toBe(24 * GiB);
    expect(parseByteSize("24")).toBe(24); // without the option a bare number stays bytes
  });
});

describe("MiB and GB conversions", () => {
  it("reads real-shaped memory totals as MiB, both ways", () => {
    // nvidia-smi totals of an RTX 4090 and an H100 80GB; a /proc/meminfo total of a "256 GB" host.
    expect(mebibytesToBytes(24564)).toBe(24564 * 1024 * 1024);
    expect(bytesToMebibytes(mebibytesToBytes(24564))).toBe(24564);
    expect(mebibytesToBytes(81559) / GiB).toBeCloseTo(79.65, 2);
    expect(bytesToMebibytes(mebibytesToBytes(81559))).toBe(81559);
    const memTotalKiB = 263_164_908; // "MemTotal: 263164908 kB"
    const cpuRamMib = Math.floor(memTotalKiB / 1024);
    expect(bytesToMebibytes(mebibytesToBytes(cpuRamMib))).toBe(cpuRamMib);
    expect(mebibytesToBytes(cpuRamMib)).toBeLessThanOrEqual(memTotalKiB * 1024);
  });

  it("rounds a bound the way it is asked to", () => {
    expect(bytesToMebibytes(MiB + 1, "up")).toBe(2);
    expect(bytesToMebibytes(2 * MiB - 1, "down")).toBe(1);
    expect(bytesToMebibytes(24 * GiB, "up")).toBe(24576);
  });

  it("reads disk sizes as decimal GB", () => {
    expect(gigabytesToBytes(500)).toBe(500e9);
    expect(bytesToGigabytes(10.4e9, "up")).toBe(11);
    expect(bytesToGigabytes(10.4e9, "down")).toBe(10);
  });
});

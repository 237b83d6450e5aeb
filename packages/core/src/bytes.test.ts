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

describe("formatBytes", () => {
  it("uses binary units people expect", () => {
    expect(formatBytes(251 * GiB)).toBe("251.0 GiB");
    expect(formatBytes(51 * MiB)).toBe("51.0 MiB");
    expect(formatBytes(512)).toBe("512 B");
  });
});

describe("cuzk size strings", () => {
  it("parses only what the daemon parses", () => {
    expect(parseCuzkSize("240GiB")).toBe(240 * GiB);
    expect(parseCuzkSize("512MiB")).toBe(512 * MiB);
    expect(parseCuzkSize("100GB")).toBe(100e9);
    expect(parseCuzkSize("1234")).toBe(1234);
    for (const bad of ["1TiB", "256G", "1.5GiB", "256 GiB", "auto", "-1GiB"])
      expect(parseCuzkSize(bad)).toBeUndefined();
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
        expect(parsed).toBeDefined();
        expect(parsed).toBeLessThanOrEqual(bytes);
        // Rounding loses less than one unit of the unit chosen.
        expect(bytes - (parsed ?? 0)).toBeLessThan(bytes >= GiB ? GiB : bytes >= MiB ? MiB : 1);
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

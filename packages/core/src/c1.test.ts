import { describe, expect, it } from "vitest";
import { inspectC1 } from "./c1.js";
import { InvalidInputError } from "./errors.js";

const encode = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));
const phase1 = Buffer.from(JSON.stringify({ registered_proof: "StackedDrg32GiBV1_1" })).toString("base64");

describe("inspectC1", () => {
  it("summarises a wrapper as Curio writes it", () => {
    const bytes = encode({ SectorNum: 7, Phase1Out: phase1, SectorSize: 34359738368 });
    expect(inspectC1(bytes)).toEqual({
      sectorNumber: 7,
      sectorSizeBytes: 34359738368,
      phase1OutBytes: 42,
      registeredProof: "StackedDrg32GiBV1_1",
      wrapperBytes: bytes.byteLength,
    });
  });

  it.each([
    ["empty", new Uint8Array(), /empty/],
    ["not JSON", new TextEncoder().encode("hello"), /not JSON/],
    ["an array", encode([1]), /not an object/],
    ["no SectorNum", encode({ Phase1Out: phase1, SectorSize: 34359738368 }), /SectorNum/],
    ["a 2 KiB sector", encode({ SectorNum: 1, Phase1Out: phase1, SectorSize: 2048 }), /SectorSize/],
    ["Phase1Out not base64", encode({ SectorNum: 1, Phase1Out: "%%%", SectorSize: 34359738368 }), /base64/],
  ])("rejects %s with a typed error", (_name, bytes, message) => {
    expect(() => inspectC1(bytes)).toThrow(InvalidInputError);
    expect(() => inspectC1(bytes)).toThrow(message);
  });

  it("rejects an input over the 128 MiB cap before parsing it", () => {
    expect(() => inspectC1(new Uint8Array(128 * 1024 * 1024 + 1))).toThrow(/128 MiB/);
  });
});

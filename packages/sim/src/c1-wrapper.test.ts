import { sectorSizeBytes } from "@cuzkit/core";
import { describe, expect, it } from "vitest";
import { createSyntheticC1, parseC1Wrapper } from "./c1-wrapper.js";
import { C1ParseError } from "./errors.js";

const text = (bytes: Uint8Array) => Buffer.from(bytes).toString("utf8");
const bytes = (value: string) => new Uint8Array(Buffer.from(value, "utf8"));
const wrap = (phase1Out: string, extra = "") =>
  bytes(`{"SectorNum":7,"Phase1Out":"${phase1Out}","SectorSize":34359738368${extra}}`);
const b64 = (value: string) => Buffer.from(value, "utf8").toString("base64");

function parseError(input: Uint8Array): C1ParseError {
  try {
    parseC1Wrapper(input);
  } catch (error) {
    if (error instanceof C1ParseError) return error;
    throw error;
  }
  throw new Error("expected a C1ParseError");
}

describe("createSyntheticC1", () => {
  it("builds the Curio wrapper shape the parser accepts", () => {
    const input = createSyntheticC1({ sectorNumber: 42 });
    const wrapper = JSON.parse(text(input)) as { SectorNum: number; Phase1Out: string; SectorSize: number };
    expect(wrapper.SectorNum).toBe(42);
    expect(wrapper.SectorSize).toBe(sectorSizeBytes["32GiB"]);
    const phase1 = JSON.parse(Buffer.from(wrapper.Phase1Out, "base64").toString("utf8")) as Record<
      string,
      unknown
    >;
    expect(phase1.registered_proof).toBe("StackedDrg32GiBV1_1");
    expect(phase1.synthetic).toBe(true);
    expect(parseC1Wrapper(input)).toMatchObject({
      sectorNumber: 42,
      sectorSizeBytes: sectorSizeBytes["32GiB"],
      registeredProof: "StackedDrg32GiBV1_1",
      registeredProofSectorBytes: sectorSizeBytes["32GiB"],
      synthetic: true,
    });
  });

  it("pads to exactly the requested size, 1 KiB by default", () => {
    expect(createSyntheticC1().byteLength).toBe(1024);
    for (const size of [300, 1001, 1002, 1003, 4096]) {
      const input = createSyntheticC1({ sizeBytes: size });
      expect(input.byteLength).toBe(size);
      expect(parseC1Wrapper(input).wrapperBytes).toBe(size);
    }
  });

  it("builds a realistic 51 MB input that still parses", () => {
    const input = createSyntheticC1({ sizeBytes: 51_000_000 });
    expect(input.byteLength).toBe(51_000_000);
    expect(parseC1Wrapper(input).phase1OutBase64Bytes).toBeGreaterThan(50_000_000);
  });

  it("is deterministic and depends on the sector number", () => {
    expect(createSyntheticC1({ sectorNumber: 3 })).toEqual(createSyntheticC1({ sectorNumber: 3 }));
    expect(createSyntheticC1({ sectorNumber: 3 })).not.toEqual(createSyntheticC1({ sectorNumber: 4 }));
  });

  it("names a 64 GiB registered proof for a 64 GiB sector", () => {
    const parsed = parseC1Wrapper(createSyntheticC1({ sectorSizeBytes: sectorSizeBytes["64GiB"] }));
    expect(parsed.registeredProof).toBe("StackedDrg64GiBV1_1");
    expect(parsed.sectorSizeBytes).toBe(sectorSizeBytes["64GiB"]);
  });

  it("refuses nonsense options", () => {
    expect(() => createSyntheticC1({ sizeBytes: -1 })).toThrow(/sizeBytes/);
    expect(() => createSyntheticC1({ sectorNumber: 1.5 })).toThrow(/sectorNumber/);
  });
});

describe("parseC1Wrapper", () => {
  it("reads with core's reader and reports what the daemon would refuse as C1ParseError", () => {
    expect(parseC1Wrapper(wrap(b64('{"registered_proof":"StackedDrg32GiBV1_1"}'))).sectorNumber).toBe(7);
    for (const [input, message] of [
      [new Uint8Array(0), /empty/],
      [bytes('{"SectorNum":1,"SectorSize":1}'), /Phase1Out/],
      [wrap(b64('{"comm_r":[1]}')), /registered_proof/],
    ] as const) {
      const error = parseError(input);
      expect(error.code).toBe("C1_PARSE_FAILED");
      expect(error.message).toMatch(message);
      expect(error.hint).toMatch(/createSyntheticC1/);
    }
  });
});

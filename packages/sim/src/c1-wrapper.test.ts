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
  it("reads a real-shaped wrapper whose registered_proof comes late in Phase1Out", () => {
    const phase1 = JSON.stringify({
      vanilla_proofs: { StackedDrg32GiBV1: [["x".repeat(70_000)]] },
      comm_r: [1, 2, 3],
      registered_proof: "StackedDrg32GiBV1_1",
    });
    const parsed = parseC1Wrapper(wrap(b64(phase1)));
    expect(parsed).toMatchObject({
      sectorNumber: 7,
      registeredProof: "StackedDrg32GiBV1_1",
      synthetic: false,
    });
  });

  it("handles whitespace and escapes the fast path skips", () => {
    const phase1 = b64('{"registered_proof":"StackedDrg32GiBV1_1"}');
    const spaced = bytes(`{ "SectorSize" : 34359738368 , "Phase1Out" : "${phase1}" , "SectorNum" : 1 }`);
    expect(parseC1Wrapper(spaced).sectorNumber).toBe(1);
    // A JSON escape inside Phase1Out (\u0065 for "e") sends the parser down its slow path.
    const withEscape = `\\u00${phase1.charCodeAt(0).toString(16)}${phase1.slice(1)}`;
    const escaped = bytes(`{"SectorNum":2,"Phase1Out":"${withEscape}","SectorSize":34359738368}`);
    expect(parseC1Wrapper(escaped).sectorNumber).toBe(2);
  });

  it.each([
    ["an empty input", new Uint8Array(0), /EOF/],
    ["not JSON", bytes("hello"), /Phase1Out/],
    ["a missing Phase1Out", bytes('{"SectorNum":1,"SectorSize":1}'), /Phase1Out/],
    ["a Phase1Out that is a number", bytes('{"SectorNum":1,"Phase1Out":5,"SectorSize":1}'), /Phase1Out/],
    ["a broken wrapper", bytes(`{"SectorNum":1,"Phase1Out":"${b64("{}")}",`), /not valid JSON/],
    [
      "a missing SectorNum",
      bytes(`{"Phase1Out":"${b64('{"registered_proof":"x"}')}","SectorSize":1}`),
      /SectorNum/,
    ],
    [
      "a SectorSize string",
      bytes(`{"SectorNum":1,"Phase1Out":"${b64('{"registered_proof":"x"}')}","SectorSize":"32GiB"}`),
      /SectorSize/,
    ],
    ["Phase1Out that is not base64", wrap("!!!!not-base64!!"), /base64/],
    ["Phase1Out that is not a JSON object", wrap(b64("just some text")), /SealCommitPhase1Output/],
    ["a Phase1Out without registered_proof", wrap(b64('{"comm_r":[1]}')), /registered_proof/],
  ])("fails with C1ParseError for %s", (_name, input, message) => {
    const error = parseError(input);
    expect(error.code).toBe("C1_PARSE_FAILED");
    expect(error.message).toMatch(message);
    expect(error.hint).toMatch(/createSyntheticC1/);
  });
});

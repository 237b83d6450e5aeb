import { describe, expect, it } from "vitest";
import { inspectC1, readC1Wrapper } from "./c1.js";
import { C1InputError } from "./errors.js";

const bytes = (value: string) => new Uint8Array(Buffer.from(value, "utf8"));
const encode = (value: unknown) => bytes(JSON.stringify(value));
const b64 = (value: string) => Buffer.from(value, "utf8").toString("base64");
const phase1 = b64(JSON.stringify({ registered_proof: "StackedDrg32GiBV1_1" }));
const wrap = (phase1Out: string, extra = "") =>
  bytes(`{"SectorNum":7,"Phase1Out":"${phase1Out}","SectorSize":34359738368${extra}}`);

function c1Error(run: () => unknown): C1InputError {
  try {
    run();
  } catch (error) {
    if (error instanceof C1InputError) return error;
    throw error;
  }
  throw new Error("expected a C1InputError");
}

describe("readC1Wrapper", () => {
  it("summarises a wrapper as Curio writes it", () => {
    const input = encode({ SectorNum: 7, Phase1Out: phase1, SectorSize: 34359738368 });
    expect(readC1Wrapper(input)).toEqual({
      sectorNumber: 7,
      sectorSizeBytes: 34359738368,
      registeredProof: "StackedDrg32GiBV1_1",
      registeredProofSectorBytes: 34359738368,
      synthetic: false,
      phase1OutBase64Bytes: phase1.length,
      phase1OutBytes: 42,
      wrapperBytes: input.byteLength,
    });
  });

  it("reads a real-shaped wrapper whose registered_proof comes late in a large Phase1Out", () => {
    const late = JSON.stringify({
      vanilla_proofs: { StackedDrg32GiBV1: [["x".repeat(300_000)]] },
      comm_r: [1, 2, 3],
      registered_proof: "StackedDrg32GiBV1_1",
    });
    expect(readC1Wrapper(wrap(b64(late)))).toMatchObject({
      sectorNumber: 7,
      registeredProof: "StackedDrg32GiBV1_1",
      phase1OutBytes: late.length,
    });
  });

  it("accepts whitespace, other fields (nested too), any key order and escapes", () => {
    const spaced = bytes(
      `{ "SectorSize" : 34359738368 ,\n "Extra": {"a": ["}", "\\"]"]}, "Phase1Out" : "${phase1}" , "SectorNum" : 1 }\n`,
    );
    expect(readC1Wrapper(spaced).sectorNumber).toBe(1);
    // A JSON escape inside Phase1Out (\u00XX for its first character) takes the slow path.
    const escaped = `\\u00${phase1.charCodeAt(0).toString(16)}${phase1.slice(1)}`;
    expect(readC1Wrapper(wrap(escaped)).registeredProof).toBe("StackedDrg32GiBV1_1");
  });

  it.each([
    ["an empty input", new Uint8Array(0), /empty/],
    ["not JSON", bytes("hello"), /not valid JSON at byte 0/],
    ["a JSON string", bytes('"x"'), /expected `\{`/],
    ["a missing Phase1Out", bytes('{"SectorNum":1,"SectorSize":1}'), /no `Phase1Out`/],
    ["a Phase1Out that is a number", bytes('{"SectorNum":1,"Phase1Out":5,"SectorSize":1}'), /JSON number/],
    ["a missing SectorNum", bytes(`{"Phase1Out":"${phase1}","SectorSize":1}`), /no `SectorNum`/],
    ["a negative SectorNum", bytes(`{"SectorNum":-1,"Phase1Out":"${phase1}","SectorSize":1}`), /SectorNum/],
    [
      "a SectorSize string",
      bytes(`{"SectorNum":1,"Phase1Out":"${phase1}","SectorSize":"32GiB"}`),
      /`SectorSize` is "32GiB"/,
    ],
    ["a field given twice", wrap(phase1, ',"SectorNum":8'), /twice/],
    ["a missing comma", bytes(`{"SectorNum":1 "Phase1Out":"${phase1}"}`), /expected `,` or `}`/],
    ["data after the object", bytes(`${Buffer.from(wrap(phase1)).toString()} {}`), /more data/],
    ["Phase1Out that is not base64", wrap("!!!!not-base64!!"), /not base64/],
    ["Phase1Out of the wrong length", wrap("abcde"), /multiple of 4/],
    ["Phase1Out that is not a JSON object", wrap(b64("just some text")), /SealCommitPhase1Output/],
    ["a Phase1Out without registered_proof", wrap(b64('{"comm_r":[1]}')), /registered_proof/],
  ])("refuses %s with C1InputError (malformed)", (_name, input, message) => {
    const error = c1Error(() => readC1Wrapper(input));
    expect(error.code).toBe("C1_INVALID");
    expect(error.reason).toBe("malformed");
    expect(error.retryable).toBe(false);
    expect(error.message).toMatch(message);
    expect(error.hint).toMatch(/SectorNum.*Phase1Out.*SectorSize/);
  });

  it.each([10, 30, 60])("says a file cut after %i%% is truncated", (percent) => {
    const whole = wrap(
      b64(JSON.stringify({ registered_proof: "StackedDrg32GiBV1_1", pad: "a".repeat(900) })),
    );
    const cut = whole.subarray(0, Math.floor((whole.byteLength * percent) / 100));
    const error = c1Error(() => readC1Wrapper(cut));
    expect(error.message).toMatch(/ends early at byte \d+ \(truncated\?\)/);
  });

  it("says a vanilla proofs file (a JSON array) is the wrong kind of input", () => {
    const error = c1Error(() => readC1Wrapper(encode([b64("proof 1"), b64("proof 2")])));
    expect(error.reason).toBe("wrong-kind");
    expect(error.message).toMatch(/JSON array.*vanilla proofs/);
  });
});

describe("inspectC1", () => {
  it("returns the wrapper for a 32 GiB sector", () => {
    expect(inspectC1(wrap(phase1)).sectorNumber).toBe(7);
  });

  it.each([
    ["a 2 KiB sector", encode({ SectorNum: 1, Phase1Out: phase1, SectorSize: 2048 }), /SectorSize 2048/],
    [
      "a 64 GiB proof in a 32 GiB wrapper",
      wrap(b64('{"registered_proof":"StackedDrg64GiBV1_1"}')),
      /StackedDrg64GiBV1_1 does not match/,
    ],
  ])("refuses %s as the wrong kind of proof", (_name, input, message) => {
    const error = c1Error(() => inspectC1(input));
    expect(error.reason).toBe("wrong-kind");
    expect(error.message).toMatch(message);
  });

  it("rejects an input over the 128 MiB cap before reading it", () => {
    expect(c1Error(() => inspectC1(new Uint8Array(128 * 1024 * 1024 + 1))).message).toMatch(/128 MiB/);
  });
});

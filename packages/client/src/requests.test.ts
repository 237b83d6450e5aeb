import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { C1InputError, curioPriority, registeredProof32GiB, sectorSizeBytes } from "@cuzkit/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { InvalidRequestError } from "./errors.js";
import {
  parseBytes32,
  parseVanillaProofsFile,
  porepRequest,
  snapRequest,
  windowPostRequest,
  winningPostRequest,
} from "./requests.js";

const hex32 = "ab".repeat(32);
const phase1Out = Buffer.from('{"registered_proof":"StackedDrg32GiBV1_1"}').toString("base64");
const c1Text = (sectorNum: number) =>
  `{"SectorNum":${sectorNum},"Phase1Out":"${phase1Out}","SectorSize":34359738368}`;
let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "cuzkit-client-req-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("request builders", () => {
  it("builds a PoRep request from a C1 file with Curio's values for 32 GiB", async () => {
    const path = join(dir, "c1.json");
    await writeFile(path, c1Text(7));
    const req = await porepRequest({ c1: { path }, minerId: 1000 });
    expect(Buffer.from(req.vanillaProof).toString()).toBe(c1Text(7));
    expect(req.proofKind).toBe(1);
    expect(req.sectorSize).toBe(BigInt(sectorSizeBytes["32GiB"]));
    expect(req.registeredProof).toBe(BigInt(registeredProof32GiB.porep));
    expect(req.priority).toBe(curioPriority.porep);
    expect(req.sectorNumber).toBe(7n);
    expect(req.minerId).toBe(1000n);
    expect(req.requestId).toBe("");
  });

  it("keeps a C1 buffer by reference (no copy of 51 MB)", async () => {
    const c1 = new Uint8Array(Buffer.from(c1Text(3)));
    const req = await porepRequest({ c1, sectorNumber: 1, minerId: 1, requestId: "mine", priority: 4 });
    expect(req.vanillaProof).toBe(c1);
    expect(req.sectorNumber).toBe(1n);
    expect(req.requestId).toBe("mine");
    expect(req.priority).toBe(4);
  });

  it("fails clearly on a missing or empty C1 file", async () => {
    await expect(
      porepRequest({ c1: { path: join(dir, "nope") }, sectorNumber: 1, minerId: 1 }),
    ).rejects.toThrow(/cannot read C1 output/);
    const empty = join(dir, "empty");
    await writeFile(empty, "");
    await expect(porepRequest({ c1: { path: empty }, sectorNumber: 1, minerId: 1 })).rejects.toBeInstanceOf(
      C1InputError,
    );
  });

  it("refuses a C1 that is not a wrapper, or a vanilla proofs file given as C1, before sending", async () => {
    await expect(porepRequest({ c1: new Uint8Array(1000).fill(1), minerId: 1 })).rejects.toMatchObject({
      code: "C1_INVALID",
      reason: "malformed",
    });
    const vanilla = new Uint8Array(Buffer.from(JSON.stringify([phase1Out])));
    await expect(porepRequest({ c1: vanilla, minerId: 1 })).rejects.toMatchObject({
      code: "C1_INVALID",
      reason: "wrong-kind",
    });
  });

  it("builds Snap, WindowPoSt and WinningPoSt requests with hex or byte digests", async () => {
    const snap = await snapRequest({
      vanillaProofs: [new Uint8Array(3)],
      sectorNumber: 2,
      minerId: 9,
      commROld: hex32,
      commRNew: `0x${hex32}`,
      commDNew: new Uint8Array(32).fill(9),
    });
    expect(snap.proofKind).toBe(2);
    expect(snap.registeredProof).toBe(BigInt(registeredProof32GiB.snap));
    expect(snap.commROld[0]).toBe(0xab);
    expect(snap.commRNew).toHaveLength(32);
    const wpost = await windowPostRequest({
      vanillaProofs: [new Uint8Array(3)],
      randomness: hex32,
      minerId: 9,
      partitionIndex: 3,
    });
    expect(wpost).toMatchObject({ proofKind: 3, partitionIndex: 3, priority: curioPriority.wpost });
    expect(wpost.registeredProof).toBe(13n);
    const winning = await winningPostRequest({
      vanillaProofs: [new Uint8Array(3)],
      randomness: hex32,
      minerId: 9,
    });
    expect(winning).toMatchObject({ proofKind: 4, priority: curioPriority.winning });
  });

  it("reads vanilla proofs files as cuzk-bench does", async () => {
    const path = join(dir, "v.json");
    await writeFile(
      path,
      JSON.stringify([Buffer.from("one").toString("base64"), Buffer.from("two").toString("base64")]),
    );
    const req = await winningPostRequest({ vanillaProofs: { path }, randomness: hex32, minerId: 1 });
    expect(req.vanillaProofs.map((p) => Buffer.from(p).toString())).toEqual(["one", "two"]);
    expect(parseVanillaProofsFile(new Uint8Array([1, 2, 3]))).toHaveLength(1);
    expect(parseVanillaProofsFile(Buffer.from("[not json"))).toHaveLength(1);
  });

  it.each([
    ["short hex", "abcd"],
    ["a CID", "bagboea4b5abcb5ab"],
    ["31 bytes", new Uint8Array(31)],
    ["non-hex", "zz".repeat(32)],
  ])("rejects %s as a 32-byte digest", (_name, value) => {
    expect(() => parseBytes32("commRNew", value)).toThrow(InvalidRequestError);
  });

  it("rejects invalid numbers", async () => {
    await expect(porepRequest({ c1: Buffer.from(c1Text(1)), sectorNumber: -1, minerId: 1 })).rejects.toThrow(
      /sectorNumber/,
    );
    await expect(porepRequest({ c1: Buffer.from(c1Text(1)), sectorNumber: 1.5, minerId: 1 })).rejects.toThrow(
      /sectorNumber/,
    );
    await expect(
      windowPostRequest({
        vanillaProofs: [new Uint8Array(1)],
        randomness: hex32,
        minerId: 1,
        partitionIndex: -2,
      }),
    ).rejects.toThrow(/partitionIndex/);
  });
});

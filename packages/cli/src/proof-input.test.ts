import { mkdtemp, rm, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { C1InputError } from "@cuzkit/core";
import { createSyntheticC1 } from "@cuzkit/sim";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { cliHint } from "./cli-hints.js";
import { buildProofInput, type ProofInputFlags } from "./proof-input.js";
import { memoryIO } from "./test-support/memory-io.js";

// Every file access the CLI and the libraries it calls make, by path: an input file must be
// opened and read once (its bytes are then sent by reference; its size is checked on the open
// handle), never read again or stat'ed by path first.
const accesses = vi.hoisted(() => [] as string[]);
vi.mock("node:fs/promises", async (importOriginal) => {
  const fs = await importOriginal<typeof import("node:fs/promises")>();
  const track =
    <A extends unknown[], R>(name: string, fn: (...args: A) => R) =>
    (...args: A): R => {
      accesses.push(`${name} ${String(args[0])}`);
      return fn(...args);
    };
  const mocked = {
    ...fs,
    readFile: track("readFile", fs.readFile),
    stat: track("stat", fs.stat),
    // A whole-file read through a handle counts as a read of that path.
    open: async (...args: Parameters<typeof fs.open>) => {
      accesses.push(`open ${String(args[0])}`);
      const handle = await fs.open(...args);
      const readFile = handle.readFile.bind(handle);
      handle.readFile = ((...rest: Parameters<typeof readFile>) => {
        accesses.push(`readFile ${String(args[0])}`);
        return readFile(...rest);
      }) as typeof handle.readFile;
      return handle;
    },
  };
  return { ...mocked, default: mocked };
});

let dir = "";
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "cuzkit-proof-input-"));
  accesses.length = 0;
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const flags = (more: Partial<ProofInputFlags>): ProofInputFlags => ({
  kind: "porep",
  sectorNum: 1,
  minerId: 1000,
  ...more,
});
const build = (more: Partial<ProofInputFlags>) => buildProofInput(flags(more), memoryIO({ cwd: dir }).io);
const readsOf = (file: string) => accesses.filter((line) => line.endsWith(join(dir, file)));

describe("buildProofInput", () => {
  it("reads a C1 file once and sends those very bytes, with the wrapper's sector number", async () => {
    await writeFile(join(dir, "c1.json"), createSyntheticC1({ sectorNumber: 42, sizeBytes: 200_000 }));
    const built = await build({ c1: "c1.json" });
    expect(readsOf("c1.json")).toEqual([`open ${join(dir, "c1.json")}`, `readFile ${join(dir, "c1.json")}`]);
    expect(built.request.sectorNumber).toBe(42n);
    expect(built.inputBytes).toBe(200_000);
    expect(built.request.vanillaProof?.byteLength).toBe(200_000);
    expect(built.description).toBe("C1 c1.json (sector 42)");
  });

  it("reads a vanilla proofs file once", async () => {
    const proofs = [Buffer.from("one").toString("base64"), Buffer.from("two").toString("base64")];
    await writeFile(join(dir, "v.json"), JSON.stringify(proofs));
    const built = await build({ kind: "winning", vanilla: "v.json" });
    expect(readsOf("v.json")).toEqual([`open ${join(dir, "v.json")}`, `readFile ${join(dir, "v.json")}`]);
    expect(built.request.vanillaProofs?.map((p) => Buffer.from(p).toString())).toEqual(["one", "two"]);
    expect(built.inputBytes).toBe(JSON.stringify(proofs).length);
  });

  it.each([
    [
      "a truncated C1 file",
      () => createSyntheticC1({ sizeBytes: 4096 }).subarray(0, 2000),
      /truncated/,
      "malformed",
    ],
    ["a file that is not JSON", () => Buffer.from("PK\u0003\u0004 zip"), /not valid JSON/, "malformed"],
    [
      "a vanilla proofs file given as --c1",
      () => Buffer.from(JSON.stringify(["AAAA"])),
      /JSON array.*vanilla/,
      "wrong-kind",
    ],
    [
      "a C1 file of a 2 KiB test sector",
      () => createSyntheticC1({ sectorSizeBytes: 2048 }),
      /SectorSize 2048/,
      "wrong-kind",
    ],
  ])("refuses %s with C1_INVALID and a hint naming --c1", async (_name, content, message, reason) => {
    await writeFile(join(dir, "bad.json"), content());
    const error = await build({ c1: "bad.json" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(C1InputError);
    expect(error).toMatchObject({ code: "C1_INVALID", reason });
    expect((error as Error).message).toMatch(message);
    expect(cliHint(error as C1InputError)).toMatch(/--c1/);
    expect(readsOf("bad.json").filter((line) => line.startsWith("readFile"))).toHaveLength(1);
  });

  it.each([
    ["--c1", { c1: "huge.json" }],
    [
      "--vanilla",
      {
        kind: "snap",
        vanilla: "huge.json",
        commROld: "00".repeat(32),
        commRNew: "00".repeat(32),
        commDNew: "00".repeat(32),
      },
    ],
  ] as const)("refuses a 2 GiB %s file from its size, without reading it", async (flag, more) => {
    await writeFile(join(dir, "huge.json"), "");
    await truncate(join(dir, "huge.json"), 2 * 2 ** 30); // sparse: no disk used
    const before = process.memoryUsage().arrayBuffers;
    const error = await build(more).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "PAYLOAD_TOO_LARGE", sizeBytes: 2 * 2 ** 30 });
    expect((error as Error).message).toContain(`the ${flag} file ${join(dir, "huge.json")} is 2048.0 MiB`);
    expect(cliHint(error as C1InputError)).toMatch(/--c1 or --vanilla/);
    expect(readsOf("huge.json")).toEqual([`open ${join(dir, "huge.json")}`]);
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(50 * 2 ** 20);
  });
});

import { mkdtemp, open, rm, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { PayloadTooLargeError } from "./errors.js";
import { maxProofInputFileBytes, readProofInputFile } from "./input-file.js";
import { porepRequest, snapRequest } from "./requests.js";

// Every whole-file read made through a file handle: an oversized input must never get one.
const wholeReads = vi.hoisted(() => ({ count: 0 }));
vi.mock("node:fs/promises", async (importOriginal) => {
  const fs = await importOriginal<typeof import("node:fs/promises")>();
  const mocked = {
    ...fs,
    open: async (...args: Parameters<typeof fs.open>) => {
      const handle = await fs.open(...args);
      const readFile = handle.readFile.bind(handle);
      handle.readFile = ((...rest: Parameters<typeof readFile>) => {
        wholeReads.count += 1;
        return readFile(...rest);
      }) as typeof handle.readFile;
      return handle;
    },
  };
  return { ...mocked, default: mocked };
});

const twoGiB = 2 * 2 ** 30;
let dir = "";
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "cuzkit-input-file-"));
  wholeReads.count = 0;
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/** A 2 GiB sparse file: its size is 2 GiB, its disk use nothing. */
async function sparseFile(name: string, bytes: number): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, "");
  await truncate(path, bytes);
  return path;
}

describe("readProofInputFile", () => {
  it("refuses a 2 GiB file from its size, without reading it or growing memory", async () => {
    const path = await sparseFile("huge.json", twoGiB);
    const before = process.memoryUsage();
    const error = await readProofInputFile(path, { label: "C1 output" }).catch((e: unknown) => e);
    const after = process.memoryUsage();
    expect(error).toBeInstanceOf(PayloadTooLargeError);
    expect(error).toMatchObject({
      code: "PAYLOAD_TOO_LARGE",
      sizeBytes: twoGiB,
      limitBytes: maxProofInputFileBytes,
    });
    expect((error as Error).message).toContain("2048.0 MiB, over the 128.0 MiB");
    expect((error as Error).message).toContain(path);
    expect(wholeReads.count).toBe(0);
    expect(after.arrayBuffers - before.arrayBuffers).toBeLessThan(50 * 2 ** 20);
    expect(after.rss - before.rss).toBeLessThan(50 * 2 ** 20);
  });

  it("reads a file at the limit whole, once", async () => {
    const path = join(dir, "ok.bin");
    await writeFile(path, Buffer.alloc(1000, 7));
    const bytes = await readProofInputFile(path, { label: "C1 output", limitBytes: 1000 });
    expect(bytes.byteLength).toBe(1000);
    expect(wholeReads.count).toBe(1);
    await expect(readProofInputFile(path, { label: "C1 output", limitBytes: 999 })).rejects.toMatchObject({
      code: "PAYLOAD_TOO_LARGE",
      sizeBytes: 1000,
      limitBytes: 999,
    });
  });

  it("reads a pipe-like file no further than the limit", async () => {
    // /dev/zero has no size to stat and never ends: only a bounded read can refuse it.
    const handle = await open("/dev/zero").catch(() => undefined);
    if (handle === undefined) return;
    await handle.close();
    await expect(
      readProofInputFile("/dev/zero", { label: "vanilla proofs", limitBytes: 3 * 2 ** 20 }),
    ).rejects.toMatchObject({
      code: "PAYLOAD_TOO_LARGE",
      sizeBytes: undefined,
      limitBytes: 3 * 2 ** 20,
    });
  });

  it("is what porepRequest and snapRequest use for a file path", async () => {
    const path = await sparseFile("huge.json", twoGiB);
    await expect(porepRequest({ minerId: 1000, c1: { path } })).rejects.toMatchObject({
      code: "PAYLOAD_TOO_LARGE",
      sizeBytes: twoGiB,
    });
    await expect(
      snapRequest({
        minerId: 1000,
        sectorNumber: 1,
        vanillaProofs: { path },
        commROld: "00".repeat(32),
        commRNew: "00".repeat(32),
        commDNew: "00".repeat(32),
      }),
    ).rejects.toMatchObject({ code: "PAYLOAD_TOO_LARGE", sizeBytes: twoGiB });
    expect(wholeReads.count).toBe(0);
  });

  it("keeps a missing file an INVALID_REQUEST naming it", async () => {
    await expect(porepRequest({ minerId: 1000, c1: { path: join(dir, "nope.json") } })).rejects.toMatchObject(
      {
        code: "INVALID_REQUEST",
      },
    );
  });
});

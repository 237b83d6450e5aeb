import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { resolveAddress, writeFileAtomic } from "./common.js";
import { memoryIO } from "./test-support/memory-io.js";

let dir = "";
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "cuzkit-common-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("writeFileAtomic", () => {
  it("replaces the file whole, and on failure leaves nothing behind", async () => {
    writeFileSync(join(dir, "cuzk.toml"), "old");
    expect(await writeFileAtomic("cuzk.toml", "new", { cwd: dir })).toBe(join(dir, "cuzk.toml"));
    expect(readFileSync(join(dir, "cuzk.toml"), "utf8")).toBe("new");
    await expect(writeFileAtomic("no-such-folder/cuzk.toml", "x", { cwd: dir })).rejects.toMatchObject({
      code: "INVALID_INPUT",
    });
    expect(readdirSync(dir)).toEqual(["cuzk.toml"]);
  });

  it("refuses a directory as the target, naming the flag, leaving no temporary file in its parent", async () => {
    mkdirSync(join(dir, "out"));
    const error = await writeFileAtomic("out", "x", { cwd: dir }, "--out").catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "INVALID_INPUT", message: "--out out is a directory" });
    expect((error as { hint: string }).hint).toMatch(/give a file path, such as --out out\/cuzk\.toml/);
    expect(readdirSync(dir)).toEqual(["out"]);
    expect(readdirSync(join(dir, "out"))).toEqual([]);
  });

  it("names the target, never the temporary file, when the write fails", async () => {
    const error = await writeFileAtomic("missing/cuzk.toml", "x", { cwd: dir }).catch((e: unknown) => e);
    expect((error as Error).message).toBe(`cannot write ${join(dir, "missing/cuzk.toml")} (ENOENT)`);
    expect((error as Error).message).not.toMatch(/\.tmp/);
  });
});

describe("resolveAddress", () => {
  it("takes --addr, then CUZK_ADDR, then the conventional port", () => {
    expect(resolveAddress("unix:///run/x.sock", memoryIO({ env: { CUZK_ADDR: "1.2.3.4:1" } }).io)).toBe(
      "unix:///run/x.sock",
    );
    expect(resolveAddress(undefined, memoryIO({ env: { CUZK_ADDR: "127.0.0.1:7" } }).io)).toBe("127.0.0.1:7");
    expect(resolveAddress(undefined, memoryIO().io)).toBe("127.0.0.1:9820");
  });
});

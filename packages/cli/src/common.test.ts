import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseDurationMs, resolveAddress, writeFileAtomic } from "./common.js";
import { memoryIO } from "./testing/memory-io.js";

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
});

describe("parseDurationMs", () => {
  it.each([
    ["90s", 90_000],
    ["30m", 1_800_000],
    ["1h", 3_600_000],
    ["1500ms", 1500],
    ["250", 250],
  ])("reads %s", (text, ms) => expect(parseDurationMs(text)).toBe(ms));
  it.each(["soon", "0s", "-5m", "1d"])("rejects %s", (text) =>
    expect(() => parseDurationMs(text)).toThrow(/duration/),
  );
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

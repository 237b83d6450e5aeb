import { chmodSync, existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { connectFleetStore, openFleetStore } from "./open-fleet-store.js";

const scratch: string[] = [];
afterEach(() => {
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "cuzkit-store-mode-"));
  scratch.push(dir);
  return dir;
}

/** The permission bits of a path. */
const mode = (path: string) => statSync(path).mode & 0o777;

describe("the SQLite store's file modes", () => {
  it("creates its folder 0700 and the database, -wal and -shm files 0600", async () => {
    const folder = join(tempDir(), "state", "cuzkit");
    const path = join(folder, "fleet.db");
    const store = openFleetStore({ path });
    try {
      // A write, so the WAL and its shared-memory index exist.
      await store.saveSettings("default", { minProofsPerHour: 40 });
      expect(mode(folder)).toBe(0o700);
      expect(mode(join(folder, ".."))).toBe(0o700);
      for (const file of [path, `${path}-wal`, `${path}-shm`]) {
        expect(existsSync(file), file).toBe(true);
        expect(mode(file), file).toBe(0o600);
      }
    } finally {
      await store.close();
    }
  });

  it("tightens a database an older version left world-readable, and leaves an existing folder's mode alone", async () => {
    const folder = tempDir();
    chmodSync(folder, 0o755);
    const path = join(folder, "fleet.db");
    await openFleetStore({ path }).close();
    chmodSync(path, 0o644);
    for (const suffix of ["-wal", "-shm"])
      if (existsSync(`${path}${suffix}`)) chmodSync(`${path}${suffix}`, 0o644);
    const store = openFleetStore({ path });
    try {
      await store.saveSettings("default", { minProofsPerHour: 40 });
      expect(mode(path)).toBe(0o600);
      for (const suffix of ["-wal", "-shm"]) {
        if (existsSync(`${path}${suffix}`)) expect(mode(`${path}${suffix}`), suffix).toBe(0o600);
      }
      // The operator's own folder (a shared state directory) is not changed.
      expect(mode(folder)).toBe(0o755);
    } finally {
      await store.close();
    }
  });
});

describe("a store that must already exist", () => {
  it("is refused with ifMissing: refuse, and nothing is created; connectFleetStore refuses mysql:// first", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cuzkit-store-missing-"));
    try {
      const path = join(dir, "typo", "fleet.db");
      expect(() => openFleetStore({ path, ifMissing: "refuse" })).toThrow(
        expect.objectContaining({ code: "FLEET_STORE", message: `there is no fleet store at ${path}` }),
      );
      expect(existsSync(join(dir, "typo"))).toBe(false);
      await expect(connectFleetStore({ location: "mysql://x" })).rejects.toMatchObject({
        code: "FLEET_STORE",
      });
      expect(existsSync("mysql:")).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  defaultSqliteDriver,
  openSqlite,
  type SqliteDatabase,
  type SqliteDriverName,
  withoutSqliteExperimentalWarning,
} from "./sqlite-driver.js";

// CI runs this file on Node 20 (better-sqlite3) and on Node 22 and 24 (node:sqlite), so each
// driver meets the same contract. A driver that cannot load on this runtime (better-sqlite3
// built for another Node's ABI) is skipped; the runtime's default driver must load.
const loadable = (["node:sqlite", "better-sqlite3"] as const).filter((driver) => {
  try {
    openSqlite(":memory:", driver).close();
    return true;
  } catch {
    return false;
  }
});

const open: SqliteDatabase[] = [];
function scratch(driver: SqliteDriverName): SqliteDatabase {
  const db = openSqlite(":memory:", driver);
  open.push(db);
  db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, score REAL)");
  return db;
}
const names = (db: SqliteDatabase) => db.prepare("SELECT name FROM t ORDER BY id").pluck().all();
afterEach(() => {
  for (const db of open.splice(0)) db.close();
});

describe("SQLite driver choice", () => {
  it.each([
    ["20.19.0", "better-sqlite3"],
    ["22.12.0", "better-sqlite3"],
    ["22.13.0", "node:sqlite"],
    ["23.3.0", "better-sqlite3"],
    ["23.4.0", "node:sqlite"],
    ["24.0.0", "node:sqlite"],
    ["26.1.0", "node:sqlite"],
  ])("Node %s uses %s", (version, driver) => {
    expect(defaultSqliteDriver(version)).toBe(driver);
  });

  it("this runtime's default driver loads", () => {
    expect(loadable).toContain(defaultSqliteDriver());
    expect(openSqlite(":memory:").driver).toBe(defaultSqliteDriver());
  });
});

describe.each(loadable)("the %s driver", (driver) => {
  it("binds positional and named parameters and reports changes and rowids", () => {
    const db = scratch(driver);
    expect(db.prepare("INSERT INTO t (name, score) VALUES (?, ?)").run("a", 1.5)).toEqual({
      changes: 1,
      lastInsertRowid: 1,
    });
    expect(
      db.prepare("INSERT INTO t (name, score) VALUES (@name, @score)").run({ name: "b", score: null }),
    ).toMatchObject({ changes: 1, lastInsertRowid: 2 });
    expect(db.prepare("UPDATE t SET score = ? WHERE score IS NOT NULL").run(2).changes).toBe(1);
    expect({ ...(db.prepare("SELECT * FROM t WHERE id = ?").get(1) as object) }).toEqual({
      id: 1,
      name: "a",
      score: 2,
    });
    expect(db.prepare("SELECT * FROM t WHERE id = ?").get(99)).toBeUndefined();
    expect(db.prepare("SELECT COUNT(*) FROM t").pluck().get()).toBe(2);
    expect(names(db)).toEqual(["a", "b"]);
  });

  it("commits a transaction's writes and returns its value", () => {
    const db = scratch(driver);
    const insert = db.prepare("INSERT INTO t (name) VALUES (?)");
    const insertBoth = db.transaction((first: string, second: string) => {
      insert.run(first);
      insert.run(second);
      return "done";
    });
    expect(insertBoth("a", "b")).toBe("done");
    expect(names(db)).toEqual(["a", "b"]);
  });

  it("rolls the whole transaction back when it throws, and rethrows that error", () => {
    const db = scratch(driver);
    const insert = db.prepare("INSERT INTO t (name) VALUES (?)");
    db.transaction(() => insert.run("kept"))();
    const failing = db.transaction(() => {
      insert.run("half");
      insert.run("kept"); // UNIQUE violation
    });
    expect(failing).toThrow(/UNIQUE/);
    expect(names(db)).toEqual(["kept"]);
    // The connection is usable and out of the failed transaction.
    db.transaction(() => insert.run("after"))();
    expect(names(db)).toEqual(["kept", "after"]);
  });

  it("undoes only a nested transaction that throws (savepoints, as better-sqlite3)", () => {
    const db = scratch(driver);
    const insert = db.prepare("INSERT INTO t (name) VALUES (?)");
    const inner = db.transaction(() => {
      insert.run("inner");
      throw new Error("inner fails");
    });
    db.transaction(() => {
      insert.run("outer");
      expect(inner).toThrow("inner fails");
      insert.run("outer again");
    })();
    expect(names(db)).toEqual(["outer", "outer again"]);

    // An outer failure undoes what a completed nested transaction wrote.
    const nested = db.transaction(() => insert.run("nested"));
    expect(
      db.transaction(() => {
        nested();
        throw new Error("outer fails");
      }),
    ).toThrow("outer fails");
    expect(names(db)).toEqual(["outer", "outer again"]);
  });

  it("refuses a transaction function that returns a promise, writing nothing", () => {
    const db = scratch(driver);
    const insert = db.prepare("INSERT INTO t (name) VALUES (?)");
    const asyncWork = db.transaction(async () => insert.run("lost"));
    expect(asyncWork).toThrow(TypeError);
    expect(names(db)).toEqual([]);
  });

  it("reads and sets pragmas, plain or simple", () => {
    const folder = mkdtempSync(join(tmpdir(), "cuzkit-sqlite-driver-"));
    try {
      const db = openSqlite(join(folder, "x.db"), driver);
      expect(db.pragma("journal_mode = WAL", { simple: true })).toBe("wal");
      db.pragma("busy_timeout = 1234");
      expect(db.pragma("busy_timeout", { simple: true })).toBe(1234);
      expect(
        (db.pragma("journal_mode") as Array<Record<string, unknown>>).map((row) => ({ ...row })),
      ).toEqual([{ journal_mode: "wal" }]);
      db.close();
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

describe("node:sqlite's ExperimentalWarning", () => {
  it("is dropped while the module loads, and every other warning passes through", async () => {
    const seen: string[] = [];
    const listener = (warning: Error) => seen.push(`${warning.name}: ${warning.message}`);
    process.on("warning", listener);
    const emitWarning = process.emitWarning;
    try {
      const value = withoutSqliteExperimentalWarning(() => {
        process.emitWarning(
          "SQLite is an experimental feature and might change at any time",
          "ExperimentalWarning",
        );
        process.emitWarning("Something else is experimental", "ExperimentalWarning");
        process.emitWarning("SQLite handle leaked", { type: "ResourceWarning" });
        return 7;
      });
      expect(value).toBe(7);
      expect(process.emitWarning).toBe(emitWarning);
      await new Promise((resolve) => setImmediate(resolve)); // warnings arrive on the next tick
      expect(seen).toEqual([
        "ExperimentalWarning: Something else is experimental",
        "ResourceWarning: SQLite handle leaked",
      ]);
    } finally {
      process.off("warning", listener);
    }
  });

  it("restores process.emitWarning when the load throws", () => {
    const emitWarning = process.emitWarning;
    expect(() =>
      withoutSqliteExperimentalWarning(() => {
        throw new Error("load failed");
      }),
    ).toThrow("load failed");
    expect(process.emitWarning).toBe(emitWarning);
  });

  it("does not reach a fleet store user's terminal", () => {
    // A fresh process: the warning is printed once per process, at the first load.
    const { stderr, status } = spawnSync(
      process.execPath,
      [
        "--import",
        "tsx",
        "--input-type=module",
        "-e",
        `const { openSqlite } = await import(${JSON.stringify(join(import.meta.dirname, "sqlite-driver.ts"))});
openSqlite(":memory:").close();
process.emitWarning("a later warning", "ExperimentalWarning");`,
      ],
      { encoding: "utf8", cwd: import.meta.dirname, timeout: 60_000 },
    );
    expect(status).toBe(0);
    expect(stderr).not.toContain("SQLite is an experimental feature");
    expect(stderr).toContain("a later warning"); // warnings still print
  });
});

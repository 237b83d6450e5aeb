import { describe, expect, it } from "vitest";
import {
  checkStoreLocation,
  isPostgresUrl,
  redactConnectionString,
  redactMessage,
} from "./connection-string.js";

describe("connection strings", () => {
  it("tells a PostgreSQL URL from a SQLite path", () => {
    expect(isPostgresUrl("postgres://u:p@h/db")).toBe(true);
    expect(isPostgresUrl("postgresql://h/db")).toBe(true);
    expect(isPostgresUrl("/var/lib/cuzkit/fleet.db")).toBe(false);
    expect(isPostgresUrl("postgres.db")).toBe(false);
  });

  it("refuses a --db that is neither a SQLite path nor a PostgreSQL URL", () => {
    for (const ok of [
      "./fleet.db",
      "/var/lib/cuzkit/fleet.db",
      ":memory:",
      "postgres://h/db",
      "POSTGRESQL://h/db",
    ]) {
      expect(() => checkStoreLocation(ok)).not.toThrow();
    }
    expect(() => checkStoreLocation("mysql://x")).toThrow(
      expect.objectContaining({
        code: "FLEET_STORE",
        message:
          "--db has the unknown scheme mysql://: the fleet store is a SQLite file path or a postgres:// URL",
      }),
    );
    expect(() => checkStoreLocation("sqlite://fleet.db")).toThrow(/unknown scheme sqlite:\/\//);
    expect(() => checkStoreLocation(" ")).toThrow(/--db is empty/);
  });

  it("hides the password, in the user part or the query, and everywhere a message repeats it", () => {
    expect(redactConnectionString("postgres://fleet:s3cr%40t@db.example:5433/harmony")).toBe(
      "postgres://fleet:***@db.example:5433/harmony",
    );
    expect(redactConnectionString("postgres://db.example/harmony?user=fleet&password=s3cret")).toBe(
      "postgres://db.example/harmony?user=fleet&password=***",
    );
    expect(redactConnectionString("postgres://fleet@db.example/harmony")).toBe(
      "postgres://fleet@db.example/harmony",
    );
    const url = "postgres://fleet:s3cr%40t@db.example/harmony";
    expect(redactMessage(`auth failed for s3cr@t at ${url}`, url)).toBe(
      "auth failed for *** at postgres://fleet:***@db.example/harmony",
    );
  });
});

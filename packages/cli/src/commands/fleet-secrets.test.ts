// Secrets off the command line: the admin token from CUZKIT_FLEET_ADMIN_TOKEN or
// --admin-token-file, the store from CUZKIT_FLEET_DB, and a warning (never the secret) when one
// is passed as an argument.
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fleetSettings, useFleetCli } from "../test-support/fleet-cli.js";

const cli = useFleetCli();
const token = "tok_0123456789abcdefGHIJ";
const serve = () => ["serve", "--db", cli.db, "--listen", "127.0.0.1:0", ...fleetSettings];
const adminTokenFile = () => join(cli.home, "admin-token");

describe("the admin token off the command line", () => {
  it("is read from CUZKIT_FLEET_ADMIN_TOKEN: none generated or kept, no warning", async () => {
    const { error, stdout, stderr } = await cli.run(serve(), {}, { CUZKIT_FLEET_ADMIN_TOKEN: token });
    expect(error).toBeUndefined();
    expect(existsSync(adminTokenFile())).toBe(false);
    expect(stdout).not.toMatch(/admin token/);
    expect(stderr).not.toMatch(/warning/);
  });

  it("is read from --admin-token-file: none generated, no warning", async () => {
    const file = join(cli.home, "token.txt");
    writeFileSync(file, `${token}\n`, { mode: 0o600 });
    const { error, stdout, stderr } = await cli.run([...serve(), "--admin-token-file", file]);
    expect(error).toBeUndefined();
    expect(existsSync(adminTokenFile())).toBe(false);
    expect(`${stdout}${stderr}`).not.toContain(token);
    expect(stderr).not.toMatch(/warning/);
  });

  it("is still taken from --admin-token, with a warning that does not repeat it", async () => {
    const { error, stderr } = await cli.run([...serve(), "--admin-token", token]);
    expect(error).toBeUndefined();
    expect(stderr).toContain(
      "warning: --admin-token on the command line is visible to other users (ps) and kept in shell history; use CUZKIT_FLEET_ADMIN_TOKEN or --admin-token-file FILE",
    );
    expect(stderr).not.toContain(token);
  });

  it("refuses both flags, an empty file and a malformed token named by its source, leaving no store", async () => {
    const empty = join(cli.home, "empty.txt");
    writeFileSync(empty, "\n");
    const both = await cli.run([...serve(), "--admin-token", token, "--admin-token-file", empty]);
    expect(both.error).toMatchObject({
      code: "INVALID_INPUT",
      message: expect.stringContaining("both give"),
    });
    const blank = await cli.run([...serve(), "--admin-token-file", empty]);
    expect(blank.error).toMatchObject({
      code: "INVALID_INPUT",
      message: `--admin-token-file ${empty} is empty`,
    });
    const short = await cli.run(serve(), {}, { CUZKIT_FLEET_ADMIN_TOKEN: "short" });
    expect(short.error).toMatchObject({
      code: "INVALID_INPUT",
      message: expect.stringMatching(/^CUZKIT_FLEET_ADMIN_TOKEN must be 16 to 128 characters/),
    });
    expect(existsSync(cli.db)).toBe(false);
    expect(existsSync(adminTokenFile())).toBe(false);
  });
});

describe("the alert webhook off the command line", () => {
  const hook = "https://hooks.example.test/services/T0/B0/secret-webhook-path";
  it("is read from CUZKIT_FLEET_ALERT_WEBHOOK or --alert-webhook-file, with no warning", async () => {
    const fromEnv = await cli.run(serve(), {}, { CUZKIT_FLEET_ALERT_WEBHOOK: hook });
    expect(fromEnv.error).toBeUndefined();
    expect(fromEnv.stderr).not.toMatch(/warning/);
    const file = join(cli.home, "hook.txt");
    writeFileSync(file, `${hook}\n`, { mode: 0o600 });
    const fromFile = await cli.run([...serve(), "--alert-webhook-file", file]);
    expect(fromFile.error).toBeUndefined();
    expect(`${fromFile.stdout}${fromFile.stderr}`).not.toContain("secret-webhook-path");
  });

  it("warns when given as an argument, without repeating it", async () => {
    const { error, stderr } = await cli.run([...serve(), "--alert-webhook", hook]);
    expect(error).toBeUndefined();
    expect(stderr).toContain("warning: --alert-webhook on the command line is visible to other users (ps)");
    expect(stderr).not.toContain("secret-webhook-path");
  });

  it("refuses both flags and a URL that is not http(s), named by its source, before any store exists", async () => {
    const file = join(cli.home, "hook.txt");
    writeFileSync(file, `${hook}\n`, { mode: 0o600 });
    const both = await cli.run([...serve(), "--alert-webhook", hook, "--alert-webhook-file", file]);
    expect(both.error).toMatchObject({
      code: "INVALID_INPUT",
      message: expect.stringContaining("both give"),
    });
    const bad = await cli.run(
      serve(),
      {},
      { CUZKIT_FLEET_ALERT_WEBHOOK: "ftp://hooks.example.test/secret-webhook-path" },
    );
    expect(bad.error).toMatchObject({
      code: "INVALID_INPUT",
      message: "CUZKIT_FLEET_ALERT_WEBHOOK is not an http(s) URL",
    });
    expect(JSON.stringify(bad.error)).not.toContain("secret-webhook-path");
    expect(existsSync(cli.db)).toBe(false);
  });
});

describe("the store off the command line", () => {
  it("is read from CUZKIT_FLEET_DB, and a missing one is named by it", async () => {
    expect((await cli.run(serve())).error).toBeUndefined();
    const status = await cli.run(["status", "--json"], {}, { CUZKIT_FLEET_DB: cli.db });
    expect(status.error).toBeUndefined();
    expect(JSON.parse(status.stdout)).toMatchObject({ fleet: "default" });
    const typo = join(cli.home, "typo.db");
    const missing = await cli.run(["status"], {}, { CUZKIT_FLEET_DB: typo });
    expect(missing.error).toMatchObject({
      code: "FLEET_STORE",
      message: `there is no fleet store at ${typo} (CUZKIT_FLEET_DB)`,
    });
    expect(existsSync(typo)).toBe(false);
  });

  it("warns when --db carries a PostgreSQL password, and never prints it", async () => {
    const { error, stderr } = await cli.run([
      "status",
      "--db",
      "postgres://fleet:s3cretPW@127.0.0.1:1/fleet",
    ]);
    expect(error).toMatchObject({ code: "FLEET_STORE" });
    expect(stderr).toContain(
      "warning: --db with a password on the command line is visible to other users (ps) and kept in shell history; put the URL in CUZKIT_FLEET_DB, or leave the password out of it and use PGPASSWORD or ~/.pgpass",
    );
    expect(stderr).not.toContain("s3cretPW");
    expect(String((error as Error).message)).not.toContain("s3cretPW");
    // Without a password in the argument: no warning.
    const plain = await cli.run(["status", "--db", "postgres://fleet@127.0.0.1:1/fleet"]);
    expect(plain.stderr).not.toMatch(/warning/);
  });
});

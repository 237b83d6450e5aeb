import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cliHint, cliMessage } from "./cli-hints.js";
import { runCli } from "./run-cli.js";
import { memoryIO } from "./testing/memory-io.js";

/** Words of the libraries' API that mean nothing on the command line. */
const libraryWords =
  /waitForReady|awaitProof|resubmit: true|with resubmit\)|timeoutMs|pollTimeoutMs|minIntervalMs|apiKey/;

describe("cliHint", () => {
  it.each([
    ["DAEMON_UNAVAILABLE", "the daemon may still be loading (use waitForReady)", /--ready-timeout/],
    ["PROOF_FAILED", "OOM; resubmit the proof (prove with resubmit: true)", /--resubmit N/],
    ["DAEMON_RESTARTED", "the job is lost; prove with resubmit", /--resubmit N/],
    [
      "DEADLINE_EXCEEDED",
      "wait with awaitProof(jobId), or raise the deadline (timeoutMs)",
      /--timeout .*--proof-timeout/,
    ],
    ["VAST_NO_API_KEY", "set the apiKey option or VAST_API_KEY", /VAST_API_KEY/],
    ["VAST_RATE_LIMITED", "space calls further apart (rateLimit minIntervalMs)", /wait a few seconds/],
    ["VAST_LOGS_TIMEOUT", "try again, or raise pollTimeoutMs", /--timeout SECONDS/],
    ["VAST_WAIT_TIMEOUT", "the instance is still starting", /--wait-minutes/],
  ])("maps %s to the flag that does it", (code, libraryHint, flag) => {
    const hint = cliHint({ code, hint: libraryHint });
    expect(hint).toMatch(flag);
    expect(hint).not.toMatch(libraryWords);
  });

  it("keeps the library's hint where no flag is involved", () => {
    expect(cliHint({ code: "INVALID_INPUT", hint: "give --cores 32" })).toBe("give --cores 32");
    expect(cliHint({ code: "PROOF_FAILED", hint: "the C1 input is corrupt" })).toBe(
      "the C1 input is corrupt",
    );
  });

  it("drops the library's option name from messages", () => {
    expect(
      cliMessage({ message: "no Vast.ai API key found (looked in: apiKey option, VAST_API_KEY, /k)" }),
    ).toBe("no Vast.ai API key found (looked in: VAST_API_KEY, /k)");
  });
});

describe("the error printer", () => {
  let home = "";
  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), "cuzkit-hints-"));
  });
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  it("prints a missing Vast key in CLI terms: VAST_API_KEY, not the apiKey option", async () => {
    const { io, stderr, stdout } = memoryIO({
      env: { HOME: home, XDG_CONFIG_HOME: join(home, "config") },
      cwd: home,
    });
    expect(await runCli(["vast", "instances"], io)).toBe(1);
    expect(stdout()).toBe("");
    expect(stderr()).toMatch(/^error: no Vast\.ai API key found \(looked in: VAST_API_KEY, /);
    expect(stderr()).toMatch(/\nhint: set VAST_API_KEY/);
    expect(stderr()).not.toMatch(libraryWords);
  });
});

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as bench from "@cuzkit/bench";
import * as client from "@cuzkit/client";
import { clientErrorCodes } from "@cuzkit/client";
import type { CuzkitError } from "@cuzkit/core";
import * as core from "@cuzkit/core";
import * as fleet from "@cuzkit/fleet";
import * as fleetAgent from "@cuzkit/fleet/agent";
import * as sim from "@cuzkit/sim";
import * as tuner from "@cuzkit/tuner";
import * as vast from "@cuzkit/vast";
import { vastErrorCodes } from "@cuzkit/vast";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { errorContext, exportedErrorClasses } from "../../../test/support/error-classes.js";
import { cliHint, cliMessage, libraryOnlyWords } from "./cli-hints.js";
import { runCli } from "./run-cli.js";
import { memoryIO } from "./test-support/memory-io.js";

/** Words of the libraries' API that mean nothing on the command line. */
const libraryWords = libraryOnlyWords;

/** Every error class a package exports, constructed with its defaults (the details each one requires given). */
const exportedErrors = (module: object): CuzkitError[] =>
  exportedErrorClasses(module).map(([, ErrorClass]) => new ErrorClass("it went wrong", errorContext));

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
    [
      "UNSAFE_CONFIG",
      "try the other daemon dialect (the dialect option) or a lighter workload, or pass force: true",
      /--dialect .*--workload.*--force/,
    ],
    ["ADDRESS_IN_USE", "stop the other daemon first, or start this one on another address", /another --addr/],
    ["C1_PARSE_FAILED", "send the C1 wrapper, or build one with createSyntheticC1()", /--c1.*--synthetic/],
  ])("maps %s to the flag that does it", (code, libraryHint, flag) => {
    const hint = cliHint({ code, hint: libraryHint });
    expect(hint).toMatch(flag);
    expect(hint).not.toMatch(libraryWords);
  });

  // The client's advice for a job that may still run (its awaitJobHint), word for word: if the
  // client rewords it, the rewrite below stops matching and this test says so.
  const awaitJobHint = (jobId: string) =>
    `the job may still be running on the daemon: wait for it with awaitProof("${jobId}"); ` +
    "do not submit the same request id again (the daemon does not deduplicate: the work would run twice)";
  const libraryErrors = [client, vast, core, fleet, fleetAgent, bench, sim, tuner].flatMap(exportedErrors);

  it("walks an error of every code the client and the Vast.ai client define", () => {
    const codes = new Set(libraryErrors.map((error) => error.code));
    for (const code of [...clientErrorCodes, ...vastErrorCodes, "C1_INVALID"]) expect(codes).toContain(code);
  });

  it.each(libraryErrors.map((error) => [`${error.name} (${error.code})`, error] as const))(
    "prints %s with a hint in command-line terms",
    (_name, error) => {
      const hint = cliHint(error);
      expect(hint).not.toMatch(libraryWords);
      if (error.hint !== "") expect(hint).not.toBe("");
    },
  );

  it.each([
    [
      "a deadline with the job running",
      new client.DeadlineExceededError("late", { hint: awaitJobHint("j-1") }),
    ],
    [
      "a frozen daemon with the job running",
      new client.DaemonFrozenError("frozen", { hint: awaitJobHint("j-1") }),
    ],
    ["a lost connection", new client.ConnectionLostError("lost", { hint: awaitJobHint("j-1") })],
    ["a bad digest", new client.InvalidRequestError("bad", { hint: "give commRNew as 64 hex characters" })],
  ])("rewrites %s in command-line terms", (_name, error) => {
    expect(cliHint(error)).not.toMatch(libraryWords);
  });

  it("tells a Vast.ai timeout from a proof deadline, and names the flags of each", () => {
    expect(cliHint(new vast.VastTimeoutError("slow", { endpoint: "GET /x" }))).toBe(
      "Vast.ai did not answer in time; run the command again",
    );
    expect(cliHint(new client.DeadlineExceededError("late"))).toMatch(/--timeout \(prove\)/);
    expect(cliHint(new client.InvalidRequestError("bad", { hint: "give commRNew as 64 hex" }))).toBe(
      "give --comm-r-new as 64 hex",
    );
    expect(
      cliHint(new vast.VastCreateUncertainError("?", { endpoint: "PUT /x", label: "cuzkit-q1" })),
    ).toMatch(/`cuzkit vast instances --label cuzkit-q1`/);
    expect(
      cliHint(new vast.VastDuplicateRentError("twice", { endpoint: "PUT /x", offerId: 1, instanceId: 9 })),
    ).toMatch(/`cuzkit vast destroy 9`/);
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

import { InvalidInputError } from "@cuzkit/core";
import { describe, expect, it } from "vitest";
import { resolveClientOptions } from "./options.js";
import { porep, recorder, useClientTestKit } from "./test-support.js";

// A deadline the caller got wrong is refused before anything is sent: a fractional or
// infinite timeoutMs used to submit the job, then fail with a BigInt DAEMON_INTERNAL.
// Fractions are rounded up to whole ms (documented); NaN, Infinity, 0 and negatives throw.

const { sim, client } = useClientTestKit();

describe("prove() timeoutMs", () => {
  it.each([
    ["Infinity", Number.POSITIVE_INFINITY],
    ["-1", -1],
    ["NaN", Number.NaN],
    ["0", 0],
  ])("%s: INVALID_INPUT naming the option, and nothing reaches the daemon", async (_label, timeoutMs) => {
    const daemon = await sim({ proofTimeMs: 0 });
    const c = client(daemon.address);
    const rec = recorder();
    const error = await c.prove(await porep(), { timeoutMs, onEvent: rec.onEvent }).catch((e) => e);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect(error.code).toBe("INVALID_INPUT");
    expect(error.message).toContain("prove() option timeoutMs");
    expect(error.hint).toMatch(/positive, finite number of milliseconds/);
    expect(rec.events).toEqual([]);
    expect(daemon.stats().connections).toBe(0);
    expect(daemon.stats().callsReceived).toEqual({});
  });

  it("a fraction is rounded up to whole ms: a 60000.5 ms deadline proves (no BigInt failure), 1 SubmitProof", async () => {
    const daemon = await sim({ proofTimeMs: 0 });
    const c = client(daemon.address);
    const result = await c.prove(await porep(), { timeoutMs: 60_000.5 });
    expect(result).toMatchObject({ attempts: 1, resubmits: 0 });
    expect(daemon.stats().submissionsByRequestId).toEqual({ [result.jobId]: 1 });
  });

  it("1.5 ms is a 2 ms deadline: DEADLINE_EXCEEDED, never DAEMON_INTERNAL", async () => {
    const daemon = await sim({ proofTimeMs: 0 });
    const c = client(daemon.address);
    const error = await c.prove(await porep(), { timeoutMs: 1.5 }).then(
      () => undefined,
      (e) => e,
    );
    // On a fast loopback the proof may even finish in 2 ms; what must never happen is a wire failure.
    if (error !== undefined) expect(error.code).toBe("DEADLINE_EXCEEDED");
  });

  it.each(["awaitProof", "getStatus", "waitForReady"] as const)(
    "%s() refuses Infinity the same way, before dialling",
    async (method) => {
      const daemon = await sim({ proofTimeMs: 0 });
      const c = client(daemon.address);
      const opts = { timeoutMs: Number.POSITIVE_INFINITY };
      const call =
        method === "awaitProof"
          ? c.awaitProof("job-1", opts)
          : method === "getStatus"
            ? c.getStatus(opts)
            : c.waitForReady(opts);
      const error = await call.catch((e) => e);
      expect(error).toBeInstanceOf(InvalidInputError);
      expect(error.message).toContain(`${method}() option timeoutMs`);
      expect(daemon.stats().connections).toBe(0);
    },
  );
});

describe("client duration options", () => {
  it.each([
    ["deadlines.proofMs", { deadlines: { proofMs: Number.POSITIVE_INFINITY } }],
    ["reconnect.giveUpAfterMs", { reconnect: { giveUpAfterMs: Number.POSITIVE_INFINITY } }],
    ["keepalive.pingIntervalMs", { keepalive: { pingIntervalMs: -1 } }],
    ["deadlines.statusMs", { deadlines: { statusMs: Number.NaN } }],
  ])("%s refused at creation with INVALID_INPUT naming it", (name, overrides) => {
    let error: unknown;
    try {
      resolveClientOptions({ address: "127.0.0.1:9820", ...overrides });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as InvalidInputError).message).toContain(`invalid client option ${name}`);
    expect((error as InvalidInputError).hint).toMatch(/finite/);
  });
});

import { createManualScheduler } from "@cuzkit/sim/testing";
import { describe, expect, it } from "vitest";
import { DaemonRestartedError } from "./errors.js";
import { awaitInFlight, porep, recorder, useClientTestKit } from "./test-support.js";

// A daemon restarted while a SubmitProof upload was on its way: the body never arrived
// (nothing runs), but the process is new. That is a restart, reported as DAEMON_RESTARTED
// with its evidence, and the kind's resubmit policy decides (PoRep: not resubmitted unless
// allowed), not a silent "not accepted" re-send that bypasses the policy.

const { sim, proxyTo, client } = useClientTestKit();

/** A daemon up an hour behind a proxy; on attempt 1 the upload is held, the daemon crashes and its supervisor restarts it. */
async function restartDuringUpload() {
  const scheduler = createManualScheduler();
  const daemon = await sim({ proofTimeMs: 0, scheduler });
  scheduler.advance(3_600_000);
  const proxy = await proxyTo(daemon);
  const c = client(proxy.address, { reconnect: { initialDelayMs: 20, maxDelayMs: 50 } });
  let restarted: Promise<void> | undefined;
  const rec = recorder((event) => {
    if (event.type === "attempt" && event.attempt === 1) {
      proxy.drop();
      restarted = proxy.whenHolding().then(async () => {
        daemon.crash("oom");
        proxy.reset();
        await daemon.restart();
        await proxy.restore();
      });
    }
    // The simulator's time is manual: a submitted proof finishes once its await is in flight.
    if (event.type === "submitted") void awaitInFlight(daemon, event).then(() => scheduler.advance(1));
  });
  return { daemon, c, rec, restarted: () => restarted };
}

describe("a daemon restarted during SubmitProof", () => {
  it("PoRep with the default policy: DAEMON_RESTARTED with uptime evidence, nothing resubmitted", async () => {
    const { daemon, c, rec, restarted } = await restartDuringUpload();
    const error = await c.prove(await porep(60_000_000), { onEvent: rec.onEvent }).catch((e) => e);
    await restarted();
    expect(error).toBeInstanceOf(DaemonRestartedError);
    expect(error.code).toBe("DAEMON_RESTARTED");
    expect(error.rpc).toBe("SubmitProof");
    expect(error.message).toMatch(/uptime went back from 3600 s to 0 s.*resubmitting is off/);
    expect(error.hint).toMatch(/resubmit: true/);
    expect(rec.events.find((e) => e.type === "daemon-restarted")).toMatchObject({
      evidence: "uptime",
      uptimeBeforeSeconds: 3600,
      uptimeAfterSeconds: 0,
    });
    expect(rec.types()).not.toContain("resubmitted");
    expect(rec.types().at(-1)).toBe("failed");
    // The held upload never arrived and nothing was sent again.
    expect(daemon.stats().submissionsByRequestId).toEqual({});
  });

  it("PoRep with resubmit allowed: one resubmit under a new id, counted, and the proof completes", async () => {
    const { daemon, c, rec } = await restartDuringUpload();
    const result = await c.prove(await porep(60_000_000), { resubmit: true, onEvent: rec.onEvent });
    expect(result).toMatchObject({ attempts: 2, resubmits: 1 });
    expect(rec.events.find((e) => e.type === "resubmitted")).toMatchObject({ reason: "daemon-restarted" });
    expect(rec.types()).toContain("daemon-restarted");
    expect(daemon.stats().submissionsByRequestId).toEqual({ [result.jobId]: 1 });
  });
});

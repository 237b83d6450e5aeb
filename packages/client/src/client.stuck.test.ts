import { InvalidInputError } from "@cuzkit/core";
import { createManualClock } from "@cuzkit/core/testing";
import { createManualScheduler } from "@cuzkit/sim/testing";
import { describe, expect, it } from "vitest";
import { createCuzkClient } from "./client.js";
import { DaemonStuckError } from "./errors.js";
import { defaultDeadlines } from "./options.js";
import { expectedProofMs } from "./stuck.js";
import { porep, recorder, useClientTestKit } from "./test-support.js";

// A daemon that answers GetStatus but never finishes a proof (the sim's stickAfterProofs fault:
// a GPU call that never returns) must not hold prove() for the whole 30-minute deadline. The
// client runs on a manual clock whose sleeps move it, so the stuck window (minutes of model
// time) passes in milliseconds and the outcome does not depend on the machine's speed.

const { sim, client } = useClientTestKit();

/** A manual clock for the client: every sleep (between progress samples) moves it at once. */
function manualClientTime() {
  const clock = createManualClock(1_000_000);
  return { clock, options: { clock, sleep: clock.sleep } };
}

describe("prove() against a daemon that holds a job without progress", () => {
  it("fails with DAEMON_STUCK and the evidence after the model's ETA x 3, long before the deadline, with 1 submit", async () => {
    const daemon = await sim({ proofTimeMs: 0, faults: { stickAfterProofs: 0 } });
    const { clock, options } = manualClientTime();
    const c = client(daemon.address, options);
    const rec = recorder();
    const startMs = clock.now();
    const error = await c.prove(await porep(), { onEvent: rec.onEvent }).catch((e) => e);

    expect(error).toBeInstanceOf(DaemonStuckError);
    expect(error.code).toBe("DAEMON_STUCK");
    expect(error.retryable).toBe(false);
    expect(error.hint).toMatch(/nvidia-smi/);
    expect(error.hint).toMatch(/restart the daemon/);
    expect(error.hint).toMatch(/awaitProof\("porep-1000-1-a1-/);
    // The sim is 2x RTX 3090: the catalog knows it, so the ETA is the model's for that GPU.
    const etaMs = expectedProofMs("porep", ["RTX 3090"]);
    expect(error.evidence).toMatchObject({
      etaMs,
      marginFactor: 3,
      windowMs: etaMs * 3,
      gpuNames: expect.arrayContaining(["RTX 3090"]),
      lastStatus: { completed: 0, failed: 0, jobOnGpu: true, gpuCurrentJobIds: [error.jobId] },
    });
    expect(error.evidence.noProgressForMs).toBeGreaterThanOrEqual(etaMs * 3);
    expect(error.message).toMatch(
      /made no progress for \d+ s \(window \d+ s: the model's ETA \d+ s x margin 3\)/,
    );
    // Well before the 30-minute proof deadline, on the client's own (monotonic) clock.
    expect(clock.now() - startMs).toBeLessThan(defaultDeadlines.proofMs / 2);
    expect(rec.types()).toEqual(["attempt", "submitted", "stuck", "failed"]);
    // Never resubmitted: the daemon may still finish it.
    expect(Object.values(daemon.stats().submissionsByRequestId)).toEqual([1]);
  });

  it("honours a fixed window (stuck.afterMs) and names it", async () => {
    const daemon = await sim({ proofTimeMs: 0, faults: { stickAfterProofs: 0 } });
    const { options } = manualClientTime();
    const c = client(daemon.address, { ...options, stuck: { afterMs: 90_000 } });
    const error = await c.prove(await porep()).catch((e) => e);
    expect(error).toBeInstanceOf(DaemonStuckError);
    expect(error.evidence).toMatchObject({ windowMs: 90_000, etaMs: undefined, marginFactor: undefined });
    expect(error.message).toMatch(/fixed window stuck\.afterMs/);
  });

  it("does not call a slow daemon stuck while other proofs keep completing", async () => {
    const scheduler = createManualScheduler();
    const daemon = await sim({ proofTimeMs: 60_000, scheduler });
    // Six proofs ahead of ours, ending 10 s apart (at 60..110 s); ours ends at 115 s.
    const other = client(daemon.address);
    for (let i = 0; i < 6; i++) {
      await other.submitProof({ ...(await porep()), requestId: `ahead-${i}` });
      scheduler.advance(i < 5 ? 10_000 : 5_000);
    }
    const { clock, options } = manualClientTime();
    // A 60 s window sampled every 15 s: without progress it is stuck after 4 samples.
    const c = client(daemon.address, { ...options, stuck: { afterMs: 60_000, pollIntervalMs: 15_000 } });
    const startMs = clock.now();
    let statusSeen = 0;
    const rec = recorder((event) => {
      if (event.type !== "submitted") return;
      // Every second progress sample, the daemon moves 10 s on: one proof ahead of ours ends.
      void (async () => {
        statusSeen = daemon.stats().callsReceived.GetStatus ?? 0;
        for (let step = 0; step < 6; step++) {
          statusSeen += 2;
          await daemon.whenReceived("GetStatus", { count: statusSeen });
          scheduler.advance(10_000);
        }
      })();
    });
    const result = await c.prove(await porep(), { onEvent: rec.onEvent });
    expect(result.proof.byteLength).toBe(1920);
    expect(rec.types()).not.toContain("stuck");
    // Ours took far longer than the window on the client's clock: only the progress kept it alive.
    expect(clock.now() - startMs).toBeGreaterThan(120_000);
  });
});

describe("the stuck option", () => {
  it.each([
    ["a negative margin", { marginFactor: -1 }, /stuck\.marginFactor/],
    ["a NaN margin", { marginFactor: Number.NaN }, /stuck\.marginFactor/],
    ["a zero window", { afterMs: 0 }, /stuck\.afterMs/],
    ["a negative poll interval", { pollIntervalMs: -5 }, /stuck\.pollIntervalMs/],
    ["an infinite poll interval", { pollIntervalMs: Number.POSITIVE_INFINITY }, /stuck\.pollIntervalMs/],
  ])("refuses %s at creation, before anything is sent", (_label, stuck, name) => {
    let error: unknown;
    try {
      createCuzkClient({ address: "127.0.0.1:9", stuck });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as InvalidInputError).message).toMatch(name);
    expect((error as InvalidInputError).hint).not.toBe("");
  });

  it("is on by default; false or Infinity turns it off", async () => {
    const on = createCuzkClient({ address: "127.0.0.1:9" });
    const off = createCuzkClient({ address: "127.0.0.1:9", stuck: false });
    const noMargin = createCuzkClient({ address: "127.0.0.1:9", stuck: { marginFactor: Infinity } });
    const noWindow = createCuzkClient({ address: "127.0.0.1:9", stuck: { afterMs: Infinity } });
    expect(on.options.stuck).toMatchObject({
      enabled: true,
      marginFactor: 3,
      minMs: 120_000,
      pollIntervalMs: 15_000,
    });
    expect([off, noMargin, noWindow].map((c) => c.options.stuck.enabled)).toEqual([false, false, false]);
    await Promise.all([on, off, noMargin, noWindow].map((c) => c.close()));
  });
});

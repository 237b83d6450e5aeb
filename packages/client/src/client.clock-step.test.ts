import { systemClock } from "@cuzkit/core";
import { createManualScheduler } from "@cuzkit/sim/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { awaitInFlight, porep, recorder, useClientTestKit } from "./test-support.js";

// A step of the system clock (NTP, an operator's `date -s`) must not read as a daemon
// restart: the daemon's uptime is monotonic, so the client's elapsed time must be too.
// The wall clock (Date) is faked and stepped; the client keeps its default clock, and the
// simulator's uptime runs on a manual scheduler (monotonic, like the real daemon's).

const { sim, client } = useClientTestKit();

afterEach(() => {
  vi.useRealTimers();
});

/** Proves while the wall clock is stepped by `stepMs` and the connection is cut; returns the result, events and submissions. */
async function proveAcrossClockStep(stepMs: number, clientClock?: typeof systemClock) {
  const scheduler = createManualScheduler();
  const daemon = await sim({ proofTimeMs: 60_000, scheduler });
  scheduler.advance(17_000); // up 17 s, as in the report
  vi.useFakeTimers({ toFake: ["Date"], now: Date.now() });
  const c = client(daemon.address, {
    reconnect: { initialDelayMs: 20, maxDelayMs: 50 },
    ...(clientClock ? { clock: clientClock } : {}),
  });
  const rec = recorder((event) => {
    if (event.type === "submitted")
      void awaitInFlight(daemon, event).then(() => {
        vi.setSystemTime(Date.now() + stepMs);
        daemon.dropConnections();
      });
    if (event.type === "resumed") void awaitInFlight(daemon, event, 2).then(() => scheduler.advance(60_000));
  });
  const outcome = await c.prove(await porep(), { resubmit: true, onEvent: rec.onEvent }).catch((e) => e);
  return { outcome, rec, submissions: daemon.stats().submissionsByRequestId };
}

describe("a wall-clock step during prove()", () => {
  it.each([
    ["+90 s", 90_000],
    ["-90 s", -90_000],
  ])(
    "%s then a cut connection: resumed, no restart reported, exactly 1 SubmitProof",
    async (_label, stepMs) => {
      const { outcome, rec, submissions } = await proveAcrossClockStep(stepMs);
      expect(outcome).toMatchObject({ attempts: 1, resubmits: 0, resumes: 1 });
      expect(rec.types()).toEqual(["attempt", "submitted", "connection-lost", "resumed", "completed"]);
      expect(rec.types()).not.toContain("daemon-restarted");
      expect(Object.values(submissions)).toEqual([1]);
    },
  );

  it("control: a client on the wall clock would call +90 s a restart (what the default clock prevents)", async () => {
    const { rec, submissions } = await proveAcrossClockStep(90_000, systemClock);
    expect(rec.events.find((e) => e.type === "daemon-restarted")).toMatchObject({ evidence: "uptime" });
    expect(Object.values(submissions)).toEqual([1, 1]);
  });
});

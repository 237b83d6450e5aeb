import { CuzkitError } from "@cuzkit/core";
import { createManualClock } from "@cuzkit/core/testing";
import { describe, expect, it } from "vitest";
import { startWatchdog, type Unresponsive } from "./watchdog.js";

// The watchdog's default timing, on a manual clock: sleeps advance time at once, so the bounds
// the README states (a death seen within 60 s, a freeze within 100 s) are checked exactly.

/** The manual clock's sleep, yielding to the event loop first so the test loop gets its turn. */
const yieldingSleep =
  (clock: ReturnType<typeof createManualClock>) => async (ms: number, signal?: AbortSignal) => {
    await new Promise((resolve) => setImmediate(resolve));
    return clock.sleep(ms, signal);
  };

/** Runs the watchdog with default timing against a daemon that stops answering at t = 0. */
async function detect(
  behaviour: "refused" | "silent" | "answers",
  untilMs = 200_000,
): Promise<Unresponsive | undefined> {
  const clock = createManualClock(0);
  let seen: Unresponsive | undefined;
  const probe = async (timeoutMs: number) => {
    if (behaviour === "answers") return;
    // A frozen daemon holds each probe for its whole deadline; a dead one refuses at once.
    if (behaviour === "silent") clock.advance(timeoutMs);
    throw new CuzkitError("no answer", {
      code: behaviour === "silent" ? "DEADLINE_EXCEEDED" : "DAEMON_UNAVAILABLE",
    });
  };
  const watchdog = startWatchdog(
    probe,
    (event) => {
      seen = { ...event, silentMs: clock.now() };
    },
    { clock, sleep: yieldingSleep(clock) },
  );
  watchdog.resume();
  while (!seen && clock.now() < untilMs) await new Promise((resolve) => setImmediate(resolve));
  watchdog.stop();
  return seen;
}

describe("watchdog (default timing)", () => {
  it("reports a dead daemon (connections refused) within 60 s", async () => {
    const seen = await detect("refused");
    expect(seen?.kind).toBe("died");
    expect(seen?.silentMs).toBeLessThanOrEqual(60_000);
  });

  it("reports a frozen daemon (probes time out) within 100 s", async () => {
    const seen = await detect("silent");
    expect(seen?.kind).toBe("froze");
    expect(seen?.lastCode).toBe("DEADLINE_EXCEEDED");
    expect(seen?.silentMs).toBeLessThanOrEqual(100_000);
  });

  it("says nothing about a daemon that answers", async () => {
    expect(await detect("answers", 300_000)).toBeUndefined();
  });

  it("judges nothing while paused (a restart in progress)", async () => {
    const clock = createManualClock(0);
    let fired = false;
    const watchdog = startWatchdog(
      async () => {
        throw new CuzkitError("refused", { code: "DAEMON_UNAVAILABLE" });
      },
      () => {
        fired = true;
      },
      { clock, sleep: yieldingSleep(clock) },
    );
    while (clock.now() < 300_000) await new Promise((resolve) => setImmediate(resolve));
    watchdog.stop();
    expect(fired).toBe(false);
  });
});

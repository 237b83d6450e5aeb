import { createConsoleLogger } from "@cuzkit/core";
import { describe, expect, it } from "vitest";
import type { LeaderLease } from "../store/leader-lease.js";
import { runLeadership } from "./leadership.js";

// A replica acts only while it holds the writer lease, stops the moment it loses it, and gives
// the lease up when it stops: two managers never act at once.

/** A lease the test hands out and takes away. */
function scriptedLease() {
  const calls: string[] = [];
  let held = false;
  let grant: (() => void) | undefined;
  let loseNow: (() => void) | undefined;
  const lease: LeaderLease = {
    get held() {
      return held;
    },
    acquire(signal) {
      calls.push("acquire");
      return new Promise<void>((resolve, reject) => {
        grant = () => {
          held = true;
          resolve();
        };
        signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
      });
    },
    lost() {
      return new Promise<void>((resolve) => {
        loseNow = () => {
          held = false;
          resolve();
        };
      });
    },
    async release() {
      calls.push("release");
      held = false;
    },
  };
  return {
    lease,
    calls,
    grant: () => grant?.(),
    lose: () => loseNow?.(),
  };
}

/** Lets every pending promise callback run. */
const settle = async () => {
  for (let i = 0; i < 20; i++) await Promise.resolve();
};

describe("runLeadership", () => {
  it("acts only while the lease is held, follows again when it is lost, and releases it on stop", async () => {
    const l = scriptedLease();
    const changes: boolean[] = [];
    const acting: string[] = [];
    let stopReplica: () => void = () => {};
    const until = new Promise<void>((resolve) => {
      stopReplica = resolve;
    });
    const done = runLeadership({
      lease: l.lease,
      until,
      onChange: (leading) => changes.push(leading),
      lead: async () => {
        acting.push("start");
        return async () => {
          acting.push("stop");
        };
      },
    });
    await settle();
    expect(acting).toEqual([]); // following: no lease yet
    l.grant();
    await settle();
    expect(acting).toEqual(["start"]);
    expect(changes).toEqual([true]);

    l.lose();
    await settle();
    expect(acting).toEqual(["start", "stop"]); // stopped acting the moment it was lost
    expect(changes).toEqual([true, false]);
    expect(l.calls).toEqual(["acquire", "acquire"]); // and follows again

    l.grant();
    await settle();
    expect(acting).toEqual(["start", "stop", "start"]);
    stopReplica();
    await done;
    expect(acting).toEqual(["start", "stop", "start", "stop"]);
    // Stopping is not losing the lease: no second "follows".
    expect(changes).toEqual([true, false, true]);
    expect(l.calls).toEqual(["acquire", "acquire", "release"]);
  });

  it("stops while following without ever acting, and still releases the lease", async () => {
    const l = scriptedLease();
    let acted = false;
    const done = runLeadership({
      lease: l.lease,
      until: Promise.resolve(),
      lead: async () => {
        acted = true;
        return async () => {};
      },
    });
    await done;
    expect(acted).toBe(false);
    expect(l.calls).toEqual(["acquire", "release"]);
  });

  it("holds on (and does not act twice) when starting to act fails, until the lease is lost", async () => {
    const l = scriptedLease();
    const changes: boolean[] = [];
    let starts = 0;
    let stopReplica: () => void = () => {};
    const until = new Promise<void>((resolve) => {
      stopReplica = resolve;
    });
    const done = runLeadership({
      lease: l.lease,
      until,
      onChange: (leading) => changes.push(leading),
      lead: async () => {
        starts++;
        throw new Error("store unreachable");
      },
    });
    await settle();
    l.grant();
    await settle();
    expect(starts).toBe(1);
    expect(changes).toEqual([true]);
    expect(l.calls).toEqual(["acquire"]);
    stopReplica();
    await done;
    expect(l.calls).toEqual(["acquire", "release"]);
  });

  it("needs no onChange, and logs (with its code) a failure to start acting", async () => {
    const l = scriptedLease();
    const lines: string[] = [];
    let stopReplica: () => void = () => {};
    const until = new Promise<void>((resolve) => {
      stopReplica = resolve;
    });
    const done = runLeadership({
      lease: l.lease,
      until,
      logger: createConsoleLogger("debug", (line) => lines.push(line)),
      lead: async () => {
        throw new Error("store unreachable");
      },
    });
    await settle();
    l.grant();
    await settle();
    l.lose();
    await settle();
    stopReplica();
    await done;
    expect(lines.some((line) => line.includes("could not start acting") && line.includes("code="))).toBe(
      true,
    );
    expect(lines.some((line) => line.includes("lost the writer lease"))).toBe(true);
    expect(l.calls).toEqual(["acquire", "acquire", "release"]);
  });
});

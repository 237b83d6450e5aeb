import { getEventListeners } from "node:events";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createConsoleLogger } from "./logger.js";
import { createManualClock } from "./testing/manual-clock.js";
import { linkSignals, monotonicClock, realSleep, systemClock } from "./time.js";

describe("time helpers", () => {
  it("monotonicClock ignores a step of the wall clock (Date)", () => {
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() });
    try {
      const before = monotonicClock.now();
      vi.setSystemTime(Date.now() - 90_000);
      const after = monotonicClock.now();
      expect(after).toBeGreaterThanOrEqual(before);
      expect(after - before).toBeLessThan(1_000);
    } finally {
      vi.useRealTimers();
    }
  });

  it("systemClock reads the wall clock (Date.now)", () => {
    vi.useFakeTimers({ toFake: ["Date"], now: 1_700_000_000_000 });
    try {
      expect(systemClock.now()).toBe(1_700_000_000_000);
    } finally {
      vi.useRealTimers();
    }
  });

  it("manual clock advances on sleep without waiting", async () => {
    const clock = createManualClock(1000);
    await clock.sleep(250);
    await clock.sleep(750);
    expect(clock.now()).toBe(2000);
    expect(clock.sleeps).toEqual([250, 750]);
  });

  describe("realSleep (fake timers; timer and listener counts)", () => {
    beforeEach(() => {
      vi.useFakeTimers();
    });
    afterEach(() => {
      vi.useRealTimers();
    });

    it("resolves after exactly ms and removes its abort listener", async () => {
      const controller = new AbortController();
      let done = false;
      const pending = realSleep(1_000, controller.signal).then(() => {
        done = true;
      });
      expect(vi.getTimerCount()).toBe(1);
      expect(getEventListeners(controller.signal, "abort")).toHaveLength(1);
      await vi.advanceTimersByTimeAsync(999);
      expect(done).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      await pending;
      expect(done).toBe(true);
      // A long-lived signal (a client's) must not collect one listener per sleep.
      expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
    });

    it("sleeps without a signal", async () => {
      let done = false;
      const pending = realSleep(500).then(() => {
        done = true;
      });
      await vi.advanceTimersByTimeAsync(500);
      await pending;
      expect(done).toBe(true);
      expect(vi.getTimerCount()).toBe(0);
    });

    it("rejects with the abort reason and clears its timer", async () => {
      const controller = new AbortController();
      const pending = realSleep(60_000, controller.signal);
      expect(vi.getTimerCount()).toBe(1);
      controller.abort(new Error("stop"));
      await expect(pending).rejects.toThrow("stop");
      // The 60 s timer is gone: nothing keeps the process alive after an abort.
      expect(vi.getTimerCount()).toBe(0);
      await expect(realSleep(1, AbortSignal.abort(new Error("already")))).rejects.toThrow("already");
      expect(vi.getTimerCount()).toBe(0);
    });
  });

  it("linkSignals aborts when any input aborts, with its reason", () => {
    const a = new AbortController();
    const b = new AbortController();
    const linked = linkSignals(a.signal, undefined, b.signal);
    expect(linked.signal.aborted).toBe(false);
    b.abort("second");
    expect(linked.signal.aborted).toBe(true);
    expect(linked.signal.reason).toBe("second");
    linked.dispose();
    expect(linkSignals(AbortSignal.abort("early")).signal.reason).toBe("early");
  });

  it("linkSignals stops at an input that is already aborted: no listener on the rest", () => {
    const later = new AbortController();
    const linked = linkSignals(AbortSignal.abort("early"), later.signal);
    expect(linked.signal.reason).toBe("early");
    expect(getEventListeners(later.signal, "abort")).toHaveLength(0);
  });

  it("linkSignals' dispose removes its listeners from every input", () => {
    const a = new AbortController();
    const b = new AbortController();
    const linked = linkSignals(a.signal, b.signal);
    expect(getEventListeners(a.signal, "abort")).toHaveLength(1);
    expect(getEventListeners(b.signal, "abort")).toHaveLength(1);
    linked.dispose();
    expect(getEventListeners(a.signal, "abort")).toHaveLength(0);
    expect(getEventListeners(b.signal, "abort")).toHaveLength(0);
  });

  it("console logger filters by level and prints fields", () => {
    const lines: string[] = [];
    const logger = createConsoleLogger("info", (line) => lines.push(line));
    logger.debug("hidden");
    logger.warn("reconnecting", { attempt: 2, addr: "127.0.0.1:9820" });
    expect(lines).toEqual(["warn reconnecting attempt=2 addr=127.0.0.1:9820"]);
  });
});

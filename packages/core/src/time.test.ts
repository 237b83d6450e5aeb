import { describe, expect, it } from "vitest";
import { createConsoleLogger } from "./logger.js";
import { createManualClock } from "./testing/manual-clock.js";
import { linkSignals, realSleep } from "./time.js";

describe("time helpers", () => {
  it("manual clock advances on sleep without waiting", async () => {
    const clock = createManualClock(1000);
    await clock.sleep(250);
    await clock.sleep(750);
    expect(clock.now()).toBe(2000);
    expect(clock.sleeps).toEqual([250, 750]);
  });

  it("realSleep rejects with the abort reason and clears its timer", async () => {
    const controller = new AbortController();
    const pending = realSleep(60_000, controller.signal);
    controller.abort(new Error("stop"));
    await expect(pending).rejects.toThrow("stop");
    await expect(realSleep(1, AbortSignal.abort(new Error("already")))).rejects.toThrow("already");
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

  it("console logger filters by level and prints fields", () => {
    const lines: string[] = [];
    const logger = createConsoleLogger("info", (line) => lines.push(line));
    logger.debug("hidden");
    logger.warn("reconnecting", { attempt: 2, addr: "127.0.0.1:9820" });
    expect(lines).toEqual(["warn reconnecting attempt=2 addr=127.0.0.1:9820"]);
  });
});

import { silentLogger } from "@cuzkit/core";
import { describe, expect, it } from "vitest";
import type { LogsBody } from "../protocol/requests.js";
import { createLogShipper, createLogTail, tailingLogger } from "./log-tail.js";
import { redactionMarker, redactSecrets } from "./redact.js";

const texts = (lines: { text: string }[]) => lines.map((l) => l.text);

describe("the log tail", () => {
  it("keeps at most maxLinesPerStream lines of each stream, the newest, apart", () => {
    const tail = createLogTail({ maxLinesPerStream: 3 });
    for (let i = 1; i <= 10; i++) tail.line("daemon", `d${i}`);
    tail.line("agent", "a1");
    expect(texts(tail.lines())).toEqual(["d8", "d9", "d10", "a1"]);
  });

  it("keeps at most maxBytesPerStream bytes of each stream, and cuts a line longer than maxLineChars", () => {
    const tail = createLogTail({ maxBytesPerStream: 100, maxLineChars: 30 });
    for (let i = 0; i < 10; i++) tail.line("daemon", `${i}`.repeat(25));
    const kept = tail.lines();
    expect(kept.reduce((sum, l) => sum + Buffer.byteLength(l.text), 0)).toBeLessThanOrEqual(100);
    expect(texts(kept)).toEqual(["6", "7", "8", "9"].map((d) => d.repeat(25)));
    tail.line("agent", "x".repeat(100));
    expect(tail.lines().at(-1)?.text).toBe(`${"x".repeat(24)} [cut]`);
  });

  it("joins lines split across chunks, redacts each whole line, and completes the last on flush", () => {
    const key = "Zq8Xv3Lm9Np2Rs5Tu7Wx0Yz4";
    const tail = createLogTail({ redact: (t) => redactSecrets(t, [key]) });
    tail.write("daemon", `starting with key ${key.slice(0, 5)}`);
    tail.write("daemon", `${key.slice(5)} ok\nnext li`);
    tail.write("daemon", Buffer.from("ne\r\nlast words"));
    expect(texts(tail.lines())).toEqual([`starting with key ${redactionMarker} ok`, "next line"]);
    tail.flush();
    expect(texts(tail.lines())).toEqual([
      `starting with key ${redactionMarker} ok`,
      "next line",
      "last words",
    ]);
  });

  it("bounds a line that never ends", () => {
    const tail = createLogTail({ maxLineChars: 10, maxLinesPerStream: 5 });
    tail.write("daemon", "y".repeat(1000));
    expect(tail.lines().length).toBeLessThanOrEqual(5);
    tail.flush();
    expect(tail.lines().every((l) => l.text.length <= 10)).toBe(true);
  });

  it("a tailing logger keeps the agent's own lines", () => {
    const tail = createLogTail();
    const logger = tailingLogger(silentLogger, tail);
    logger.info("agent registered", { instanceId: "i-1" });
    logger.debug("not kept");
    logger.error("agent step failed", { code: "X" });
    expect(texts(tail.lines())).toEqual([
      'info agent registered {"instanceId":"i-1"}',
      'error agent step failed {"code":"X"}',
    ]);
  });
});

describe("the log shipper", () => {
  const setup = (options: { minIntervalMs?: number; maxLines?: number; maxBytes?: number } = {}) => {
    let now = 1_000;
    const tail = createLogTail({ now: () => now });
    const sent: LogsBody[] = [];
    let failNext = false;
    const shipper = createLogShipper({
      tail,
      now: () => now,
      send: async (body) => {
        if (failNext) {
          failNext = false;
          throw new Error("unreachable");
        }
        sent.push(body);
      },
      ...options,
    });
    return {
      tail,
      sent,
      shipper,
      advance: (ms: number) => {
        now += ms;
      },
      failOnce: () => {
        failNext = true;
      },
    };
  };

  it("ships at most once per minIntervalMs, except on a failure, and each line once", async () => {
    const s = setup({ minIntervalMs: 30_000 });
    s.tail.line("agent", "one");
    expect(await s.shipper.ship("phase", "params")).toBe("sent");
    s.tail.line("agent", "two");
    expect(await s.shipper.ship("phase", "warmup")).toBe("too-soon");
    expect(await s.shipper.ship("request")).toBe("too-soon");
    s.advance(29_999);
    expect(await s.shipper.ship("request")).toBe("too-soon");
    s.advance(1);
    expect(await s.shipper.ship("request")).toBe("sent");
    expect(await s.shipper.ship("failure", "warmup")).toBe("nothing-new");
    s.tail.write("daemon", "panic: out of memory");
    // A failure ships at once, whatever the interval, with the daemon's unfinished last line.
    expect(await s.shipper.ship("failure", "warmup")).toBe("sent");
    expect(s.sent.map((b) => [b.reason, texts(b.lines)])).toEqual([
      ["phase", ["one"]],
      ["request", ["two"]],
      ["failure", ["panic: out of memory"]],
    ]);
  });

  it("bounds each shipment to the newest lines within maxLines and maxBytes, and counts the rest", async () => {
    const s = setup({ maxLines: 3, maxBytes: 1000 });
    for (let i = 1; i <= 5; i++) s.tail.line("daemon", `line ${i}`);
    await s.shipper.ship("failure");
    expect(texts(s.sent[0]?.lines ?? [])).toEqual(["line 3", "line 4", "line 5"]);
    expect(s.sent[0]?.dropped).toBe(2);

    // Bytes as sent: each line's JSON, so a body of escaped text stays within the manager's limit.
    const lineBytes = Buffer.byteLength(
      JSON.stringify({ stream: "daemon", at: 1_000, text: "1".repeat(10) }),
    );
    const b = setup({ maxBytes: 2 * lineBytes + 5 });
    for (let i = 1; i <= 5; i++) b.tail.line("daemon", `${i}`.repeat(10));
    await b.shipper.ship("failure");
    expect(texts(b.sent[0]?.lines ?? [])).toEqual(["4".repeat(10), "5".repeat(10)]);
    expect(b.sent[0]?.dropped).toBe(3);
  });

  it("keeps the lines of a failed send for the next shipment", async () => {
    const s = setup();
    s.tail.line("agent", "kept for later");
    s.failOnce();
    await expect(s.shipper.ship("failure")).rejects.toThrow("unreachable");
    expect(await s.shipper.ship("failure")).toBe("sent");
    expect(texts(s.sent[0]?.lines ?? [])).toEqual(["kept for later"]);
  });
});

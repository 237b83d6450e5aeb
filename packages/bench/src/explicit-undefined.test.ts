import { describe, expect, it } from "vitest";
import { resolveBenchmarkOptions } from "./options.js";
import { phaseDeadlines } from "./phase-deadlines.js";

// Options are typed `x?: T | undefined`: passing `x: undefined` must mean "not given".

describe("a benchmark option passed as undefined keeps its default", () => {
  it("a phase override of undefined falls back to ETA x margin, or to the fallback", () => {
    const deadlines = phaseDeadlines(
      { warmup: 2_000 },
      { timed: 5_000 },
      { margin: undefined, floorMs: undefined, overrides: { warmup: undefined, timed: undefined } },
    );
    expect(deadlines.warmup).toBe(6_000); // 2 s x the default margin 3
    expect(deadlines.timed).toBe(5_000);
  });

  it("count, concurrency, warmup, heartbeat, ready timeout and resubmit as undefined get their defaults", () => {
    const resolved = resolveBenchmarkOptions({
      address: "127.0.0.1:9820",
      request: {},
      kind: "porep",
      count: undefined,
      concurrency: undefined,
      warmup: undefined,
      heartbeatMs: undefined,
      readyTimeoutMs: undefined,
      resubmit: undefined,
      maxConsecutiveFailures: undefined,
      earlyVerdict: undefined,
    });
    expect(resolved).toMatchObject({
      count: 12,
      concurrency: 1,
      warmupProofs: 1,
      heartbeatMs: 30_000,
      readyTimeoutMs: 600_000,
      resubmit: 1,
      maxConsecutiveFailures: 3,
      earlyVerdict: undefined,
    });
  });
});

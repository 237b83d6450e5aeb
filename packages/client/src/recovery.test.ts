import { describe, expect, it } from "vitest";
import {
  type BreakKind,
  decideRecovery,
  type ProbeResult,
  type RecoveryDecision,
  type RecoveryEvidence,
  type StatusSample,
} from "./recovery.js";

// The recovery rules as a table: evidence in, verdict out. Times are clock ms since an
// arbitrary origin; the break happens at t = 100_000.

const breakAtMs = 100_000;
const status = (uptimeSeconds: number, atMs: number, extra: Partial<StatusSample> = {}): StatusSample => ({
  uptimeSeconds,
  completed: 5,
  failed: 1,
  atMs,
  rttMs: 2,
  ...extra,
});
const answered = (s: StatusSample): ProbeResult => ({ outcome: "answered", status: s });
const failed = (outcome: "refused" | "reset" | "timeout" | "local", atMs: number): ProbeResult => ({
  outcome,
  atMs,
});

function evidence(
  breakKind: BreakKind,
  probes: ProbeResult[],
  nowMs: number,
  baseline: StatusSample | "none" = status(3, breakAtMs - 1_000),
): RecoveryEvidence {
  const before = baseline === "none" ? undefined : baseline;
  return { breakKind, breakAtMs, nowMs, before, probes, unreachableAfterMs: 120_000, frozenAfterMs: 15_000 };
}

const cases: [string, RecoveryEvidence, RecoveryDecision["kind"], Record<string, unknown>?][] = [
  ["no probe yet", evidence("reset", [], breakAtMs), "unknown"],
  // Same process: uptime grew with the clock (3 s, then 8 s five seconds later: the tunnel blip).
  [
    "uptime continued after refusals (a forwarded port came back)",
    evidence(
      "refused",
      [
        failed("refused", breakAtMs + 1_000),
        failed("refused", breakAtMs + 2_000),
        answered(status(8, breakAtMs + 4_000)),
      ],
      breakAtMs + 4_000,
    ),
    "resume",
  ],
  [
    "uptime 2 s behind the clock (whole seconds, a slow answer)",
    evidence("reset", [answered(status(6, breakAtMs + 4_000, { rttMs: 900 }))], breakAtMs + 4_000),
    "resume",
  ],
  [
    "no baseline: nothing says it restarted",
    evidence("reset", [answered(status(1, breakAtMs))], breakAtMs, "none"),
    "resume",
  ],
  [
    "uptime went back: a new process",
    evidence(
      "reset",
      [answered(status(1, breakAtMs + 3_000))],
      breakAtMs + 3_000,
      status(5000, breakAtMs - 10),
    ),
    "restarted",
    { evidence: "uptime" },
  ],
  [
    "restarted quickly: uptime grew, but less than the time that passed",
    evidence("refused", [answered(status(4, breakAtMs + 30_000))], breakAtMs + 30_000),
    "restarted",
    { evidence: "uptime" },
  ],
  [
    "counters went back (restart hidden by a long-running baseline)",
    evidence(
      "reset",
      [answered(status(50, breakAtMs + 1_000, { completed: 0 }))],
      breakAtMs + 1_000,
      status(10, breakAtMs - 39_000),
    ),
    "restarted",
    { evidence: "counters" },
  ],
  [
    "a PING timeout then one silent probe: frozen at once",
    evidence("ping-timeout", [failed("timeout", breakAtMs + 5_000)], breakAtMs + 5_000),
    "frozen",
    { silentForMs: 5_000 },
  ],
  [
    "a submit deadline then one silent probe: frozen",
    evidence("timeout", [failed("timeout", breakAtMs + 5_000)], breakAtMs + 5_000),
    "frozen",
  ],
  [
    "silent after a reset, before the frozen window: probe again",
    evidence("reset", [failed("timeout", breakAtMs + 5_000)], breakAtMs + 5_000),
    "unknown",
  ],
  [
    "silent after a reset for the frozen window",
    evidence(
      "reset",
      [failed("timeout", breakAtMs + 5_000), failed("timeout", breakAtMs + 15_000)],
      breakAtMs + 15_000,
    ),
    "frozen",
  ],
  [
    "refused for 14 s (a supervisor restart), then one slow first answer: not frozen yet",
    evidence(
      "reset",
      [failed("refused", breakAtMs + 14_000), failed("timeout", breakAtMs + 19_000)],
      breakAtMs + 19_000,
    ),
    "unknown",
  ],
  [
    "a PING timeout, refused, then silent: silence counts from the refusal",
    evidence(
      "ping-timeout",
      [failed("refused", breakAtMs + 100), failed("timeout", breakAtMs + 5_100)],
      breakAtMs + 5_100,
    ),
    "unknown",
  ],
  [
    "a PING timeout, then refused: the process may be gone, wait for the window",
    evidence("ping-timeout", [failed("refused", breakAtMs + 10)], breakAtMs + 10),
    "unknown",
  ],
  [
    "refused inside the window: not proof of death",
    evidence("refused", [failed("refused", breakAtMs + 60_000)], breakAtMs + 60_000),
    "unknown",
  ],
  [
    "refused until the window closed: lost (unreachable)",
    evidence("reset", [failed("refused", breakAtMs + 120_000)], breakAtMs + 120_000),
    "lost",
    { unreachableForMs: 120_000 },
  ],
  [
    "resets until the window closed: lost",
    evidence("reset", [failed("reset", breakAtMs + 120_500)], breakAtMs + 120_500),
    "lost",
  ],
  [
    "a local fault says nothing: probe again",
    evidence("local", [failed("local", breakAtMs + 1)], breakAtMs + 1),
    "unknown",
  ],
  [
    "a local fault, then the daemon answers with its uptime continued",
    evidence("local", [answered(status(4, breakAtMs + 1))], breakAtMs + 1),
    "resume",
  ],
  [
    "an answer wins over earlier silence",
    evidence(
      "ping-timeout",
      [failed("timeout", breakAtMs + 5_000), answered(status(9, breakAtMs + 6_000))],
      breakAtMs + 6_000,
    ),
    "resume",
  ],
];

describe("decideRecovery", () => {
  it.each(cases)("%s", (_name, input, kind, fields) => {
    const decision = decideRecovery(input);
    expect(decision.kind).toBe(kind);
    if (fields) expect(decision).toMatchObject(fields);
  });

  it("is pure: the same evidence gives the same verdict and is not modified", () => {
    const input = evidence("refused", [failed("refused", breakAtMs + 1)], breakAtMs + 1);
    const copy = structuredClone(input);
    expect(decideRecovery(input)).toEqual(decideRecovery(input));
    expect(input).toEqual(copy);
  });
});

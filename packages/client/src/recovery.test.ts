import { describe, expect, it } from "vitest";
import {
  ConnectionLostError,
  DaemonFrozenError,
  DaemonUnavailableError,
  DeadlineExceededError,
  JobNotFoundError,
  LocalTransportError,
} from "./errors.js";
import {
  type BreakKind,
  breakKindOf,
  decideRecovery,
  type ProbeResult,
  probeOutcomeOf,
  type RecoveryDecision,
  type RecoveryEvidence,
  type StatusSample,
  statusSample,
} from "./recovery.js";
import { normalizeStatus } from "./status.js";
import { create as createStatus } from "./testing/status-fixture.js";

// The recovery rules as a table: evidence in, verdict out. Times are clock ms since an
// arbitrary origin; the break happens at t = 100_000, and probes are placed by their delay after it.

const breakAtMs = 100_000;
const status = (uptimeSeconds: number, atMs: number, extra: Partial<StatusSample> = {}): StatusSample => ({
  uptimeSeconds,
  completed: 5,
  failed: 1,
  atMs,
  rttMs: 2,
  ...extra,
});
/** A probe answered `afterMs` after the break, with the daemon's uptime. */
const answered = (
  uptimeSeconds: number,
  afterMs: number,
  extra: Partial<StatusSample> = {},
): ProbeResult => ({
  outcome: "answered",
  status: status(uptimeSeconds, breakAtMs + afterMs, extra),
});
/** A probe that failed `afterMs` after the break. */
const failed = (outcome: "refused" | "reset" | "timeout" | "local", afterMs: number): ProbeResult => ({
  outcome,
  atMs: breakAtMs + afterMs,
});
const probeAtMs = (probe: ProbeResult) => (probe.outcome === "answered" ? probe.status.atMs : probe.atMs);

/** The evidence as it stands when the last probe came back (at the break when there is none). */
function evidence(
  breakKind: BreakKind,
  probes: ProbeResult[],
  baseline: StatusSample | "none" = status(3, breakAtMs - 1_000),
): RecoveryEvidence {
  const before = baseline === "none" ? undefined : baseline;
  const last = probes.at(-1);
  const nowMs = last === undefined ? breakAtMs : probeAtMs(last);
  return { breakKind, breakAtMs, nowMs, before, probes, unreachableAfterMs: 120_000, frozenAfterMs: 15_000 };
}

const cases: [string, RecoveryEvidence, RecoveryDecision["kind"], Record<string, unknown>?][] = [
  ["no probe yet", evidence("reset", []), "unknown"],
  // Same process: uptime grew with the clock (3 s, then 8 s five seconds later: the tunnel blip).
  [
    "uptime continued after refusals (a forwarded port came back)",
    evidence("refused", [failed("refused", 1_000), failed("refused", 2_000), answered(8, 4_000)]),
    "resume",
  ],
  [
    "uptime 2 s behind the clock (whole seconds, a slow answer)",
    evidence("reset", [answered(6, 4_000, { rttMs: 900 })]),
    "resume",
  ],
  ["no baseline: nothing says it restarted", evidence("reset", [answered(1, 0)], "none"), "resume"],
  [
    "uptime went back: a new process",
    evidence("reset", [answered(1, 3_000)], status(5000, breakAtMs - 10)),
    "restarted",
    { evidence: "uptime" },
  ],
  [
    "restarted quickly: uptime grew, but less than the time that passed",
    evidence("refused", [answered(4, 30_000)]),
    "restarted",
    { evidence: "uptime" },
  ],
  [
    "counters went back (restart hidden by a long-running baseline)",
    evidence("reset", [answered(50, 1_000, { completed: 0 })], status(10, breakAtMs - 39_000)),
    "restarted",
    { evidence: "counters" },
  ],
  [
    "a PING timeout then one silent probe: frozen at once",
    evidence("ping-timeout", [failed("timeout", 5_000)]),
    "frozen",
    { silentForMs: 5_000 },
  ],
  [
    "a submit deadline then one silent probe: frozen",
    evidence("timeout", [failed("timeout", 5_000)]),
    "frozen",
  ],
  [
    "silent after a reset, before the frozen window: probe again",
    evidence("reset", [failed("timeout", 5_000)]),
    "unknown",
  ],
  [
    "silent after a reset for the frozen window",
    evidence("reset", [failed("timeout", 5_000), failed("timeout", 15_000)]),
    "frozen",
  ],
  [
    "refused for 14 s (a supervisor restart), then one slow first answer: not frozen yet",
    evidence("reset", [failed("refused", 14_000), failed("timeout", 19_000)]),
    "unknown",
  ],
  [
    "a PING timeout, refused, then silent: silence counts from the refusal",
    evidence("ping-timeout", [failed("refused", 100), failed("timeout", 5_100)]),
    "unknown",
  ],
  [
    "a PING timeout, then refused: the process may be gone, wait for the window",
    evidence("ping-timeout", [failed("refused", 10)]),
    "unknown",
  ],
  [
    "refused inside the window: not proof of death",
    evidence("refused", [failed("refused", 60_000)]),
    "unknown",
  ],
  [
    "refused until the window closed: lost (unreachable)",
    evidence("reset", [failed("refused", 120_000)]),
    "lost",
    { unreachableForMs: 120_000 },
  ],
  ["resets until the window closed: lost", evidence("reset", [failed("reset", 120_500)]), "lost"],
  ["a local fault says nothing: probe again", evidence("local", [failed("local", 1)]), "unknown"],
  [
    "a local fault, then the daemon answers with its uptime continued",
    evidence("local", [answered(4, 1)]),
    "resume",
  ],
  [
    "an answer wins over earlier silence",
    evidence("ping-timeout", [failed("timeout", 5_000), answered(9, 6_000)]),
    "resume",
  ],
  [
    "the failed count went back (a restart that completed nothing yet)",
    evidence("reset", [answered(50, 1_000, { failed: 0 })], status(10, breakAtMs - 39_000)),
    "restarted",
    { evidence: "counters" },
  ],
  [
    "uptime exactly 2 s behind the clock, no round trip: still the same process",
    evidence("reset", [answered(10, 9_000, { rttMs: 0 })], status(3, breakAtMs)),
    "resume",
  ],
  [
    "uptime 2.1 s behind the clock, no round trip: a new process",
    evidence("reset", [answered(9.9, 9_000, { rttMs: 0 })], status(3, breakAtMs)),
    "restarted",
    { evidence: "uptime" },
  ],
  [
    "a slow round trip excuses the lag it explains (3 s behind, 1.5 s in flight)",
    evidence("reset", [answered(9, 9_000, { rttMs: 1_500 })], status(3, breakAtMs)),
    "resume",
  ],
  [
    "refused until just before the window closes: not lost yet",
    evidence("reset", [failed("refused", 119_999)]),
    "unknown",
  ],
  [
    "silent after a reset for just under the frozen window",
    evidence("reset", [failed("timeout", 5_000), failed("timeout", 14_999)]),
    "unknown",
  ],
  [
    "silent past the unreachable window, even right after a refusal",
    evidence("reset", [failed("refused", 119_000), failed("timeout", 120_000)]),
    "frozen",
  ],
  [
    "an answer, then silence: silence counts from the answer",
    evidence("reset", [answered(8, 4_000), failed("timeout", 10_000)]),
    "unknown",
  ],
  [
    "an answer, then silence for the frozen window after it",
    evidence("reset", [answered(8, 4_000), failed("timeout", 19_000)]),
    "frozen",
    { silentForMs: 15_000 },
  ],
];

describe("decideRecovery", () => {
  it.each(cases)("%s", (_name, input, kind, fields) => {
    const decision = decideRecovery(input);
    expect(decision.kind).toBe(kind);
    if (fields) expect(decision).toMatchObject(fields);
  });

  it("is pure: the same evidence gives the same verdict and is not modified", () => {
    const input = evidence("refused", [failed("refused", 1)]);
    const copy = structuredClone(input);
    expect(decideRecovery(input)).toEqual(decideRecovery(input));
    expect(input).toEqual(copy);
  });
});

describe("the evidence from a probe", () => {
  it("takes the round trip from send to answer, never negative (a clock that stepped back)", () => {
    const status = normalizeStatus(createStatus(42));
    expect(statusSample(status, 1_000, 1_250)).toMatchObject({ uptimeSeconds: 42, atMs: 1_250, rttMs: 250 });
    expect(statusSample(status, 1_000, 900).rttMs).toBe(0);
  });

  it("classifies a failed probe by its error: refused, reset, local, else silent", () => {
    expect(probeOutcomeOf(new DaemonUnavailableError("refused"))).toBe("refused");
    expect(probeOutcomeOf(new ConnectionLostError("reset"))).toBe("reset");
    expect(probeOutcomeOf(new LocalTransportError("local"))).toBe("local");
    expect(probeOutcomeOf(new DeadlineExceededError("silent"))).toBe("timeout");
    expect(probeOutcomeOf(new DaemonFrozenError("no PING answer"))).toBe("timeout");
    expect(breakKindOf(new DaemonFrozenError("no PING answer"))).toBe("ping-timeout");
    expect(breakKindOf(new JobNotFoundError("gone"))).toBeUndefined();
  });
});

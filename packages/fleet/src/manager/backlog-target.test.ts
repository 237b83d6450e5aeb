import { describe, expect, it } from "vitest";
import {
  type BacklogObservation,
  type BacklogState,
  decideBacklogTarget,
  resolveBacklogPolicy,
} from "./backlog-target.js";

const minute = 60_000;
const t0 = Date.UTC(2026, 11, 2, 12, 0, 0);
// One machine proves 40 proofs/hour: one proof every 90 s.
const machine = 40;
const policy = resolveBacklogPolicy({ minInstances: 1, maxInstances: 4 });
const seen = (over: Partial<BacklogObservation>): BacklogObservation => ({
  nowMs: t0,
  waiting: 0,
  oldestPostedMs: undefined,
  fleetProofsPerHour: machine,
  machineProofsPerHour: machine,
  ...over,
});
const at = (target: number, quietSinceMs?: number): BacklogState => ({ target, quietSinceMs });

describe("decideBacklogTarget", () => {
  it("resolves the defaults: 1..4 machines, a bound of 45 min less ProveTimeout's 30 min, a 30 min idle window", () => {
    expect(resolveBacklogPolicy()).toEqual({
      minInstances: 1,
      maxInstances: 4,
      proofDeadlineMs: 45 * minute,
      proveTimeoutMs: 30 * minute,
      clearBoundMs: 15 * minute,
      quietFraction: 0.5,
      idleWindowMs: 30 * minute,
    });
    // The bound follows a changed deadline unless given.
    expect(resolveBacklogPolicy({ proofDeadlineMs: 60 * minute }).clearBoundMs).toBe(30 * minute);
  });

  it("refuses a policy that cannot hold, naming the flag", () => {
    expect(() => resolveBacklogPolicy({ minInstances: 0 })).toThrow(
      expect.objectContaining({ code: "FLEET_CONFIG", hint: expect.stringContaining("--min-instances") }),
    );
    expect(() => resolveBacklogPolicy({ minInstances: 3, maxInstances: 2 })).toThrow(
      expect.objectContaining({ hint: expect.stringContaining("--max-instances") }),
    );
    expect(() => resolveBacklogPolicy({ proofDeadlineMs: 20 * minute })).toThrow(
      expect.objectContaining({ hint: expect.stringContaining("--backlog-bound") }),
    );
    expect(() => resolveBacklogPolicy({ quietFraction: 1 })).toThrow(/quiet fraction/);
  });

  it("scales a burst up at once to what clears it within the bound, capped at the maximum, with its figures", () => {
    // 200 waiting at 40/h: 5 h to clear; clearing in 15 min takes 200 x 90 s / 15 min = 20 machines.
    const d = decideBacklogTarget(seen({ waiting: 200, oldestPostedMs: t0 }), at(1), policy);
    expect(d).toMatchObject({ action: "up", reason: "over-bound", previousTarget: 1, target: 4 });
    expect(d.figures).toEqual({
      waiting: 200,
      oldestAgeMs: 0,
      slackMs: 15 * minute,
      fleetProofsPerHour: 40,
      machineProofsPerHour: 40,
      timeToClearMs: 5 * 60 * minute,
      boundMs: 15 * minute,
      neededInstances: 20,
    });
    expect(d.text).toBe(
      "200 waiting, oldest 0.0 min, 40.0 proofs/hour: clears in 300.0 min against 15.0 min; up from 1 to 4 machines",
    );
    // Under the cap: 15 waiting need ceil(15 x 1.5 / 15) = 2 machines.
    expect(decideBacklogTarget(seen({ waiting: 15, oldestPostedMs: t0 }), at(1), policy)).toMatchObject({
      action: "up",
      target: 2,
    });
  });

  it("holds while the machines it asked for rent and vet, and at the maximum", () => {
    // The fleet still proves 40/h (the new machines vet): over the bound, but 2 are asked for.
    expect(decideBacklogTarget(seen({ waiting: 15, oldestPostedMs: t0 }), at(2), policy)).toMatchObject({
      action: "hold",
      reason: "over-bound-asked",
      target: 2,
      state: { target: 2, quietSinceMs: undefined },
    });
    const atMax = decideBacklogTarget(seen({ waiting: 500, oldestPostedMs: t0 }), at(4), policy);
    expect(atMax).toMatchObject({ action: "hold", reason: "over-bound-asked", target: 4 });
    expect(atMax.text).toMatch(/at the maximum/);
  });

  it("counts no rate as never clearing: work and no active machine scales up", () => {
    const d = decideBacklogTarget(
      seen({ waiting: 30, oldestPostedMs: t0, fleetProofsPerHour: 0 }),
      at(1),
      resolveBacklogPolicy({ minInstances: 1, maxInstances: 10 }),
    );
    expect(d).toMatchObject({
      action: "up",
      target: 3,
      figures: { timeToClearMs: null, neededInstances: 3 },
    });
  });

  it("scales up for an oldest task that would be claimed too late, and reports one past saving", () => {
    // 10 waiting: 15 min to clear at 40/h, at the bound; but the oldest is 14 min old: 1 min left
    // to be claimed, and one machine frees a slot every 90 s. Two free one every 45 s.
    const risk = decideBacklogTarget(seen({ waiting: 10, oldestPostedMs: t0 - 14 * minute }), at(1), policy);
    expect(risk).toMatchObject({
      action: "up",
      reason: "over-bound",
      target: 2,
      figures: { slackMs: minute, timeToClearMs: 15 * minute, boundMs: 15 * minute, neededInstances: 2 },
    });
    expect(risk.text).toMatch(/the oldest has 1\.0 min left to be claimed; up from 1 to 2 machines$/);
    // A task 20 min past its slack: no machine saves it, so it is reported, not chased.
    const late = decideBacklogTarget(seen({ waiting: 1, oldestPostedMs: t0 - 35 * minute }), at(1), policy);
    expect(late).toMatchObject({
      action: "hold",
      reason: "quiet",
      target: 1,
      figures: { slackMs: -20 * minute, neededInstances: 1 },
    });
    expect(late.text).toMatch(/oldest 35\.0 min \(the oldest is past its slack\)/);
  });

  it("holds within the band between the quiet edge and the bound, and restarts the quiet clock", () => {
    // 8 waiting at 40/h: 12 min to clear, over 7.5 min (half the bound), under 15.
    const d = decideBacklogTarget(seen({ waiting: 8, oldestPostedMs: t0 }), at(3, t0 - 20 * minute), policy);
    expect(d).toMatchObject({
      action: "hold",
      reason: "within-band",
      target: 3,
      state: { target: 3, quietSinceMs: undefined },
    });
  });

  it("scales down only after a whole idle window of quiet, to what keeps the quiet edge, never under the minimum", () => {
    const quietSince = t0;
    const before = decideBacklogTarget(
      seen({ nowMs: t0 + 30 * minute - 1, fleetProofsPerHour: 160 }),
      at(4, quietSince),
      policy,
    );
    expect(before).toMatchObject({
      action: "hold",
      reason: "quiet",
      target: 4,
      state: { quietSinceMs: quietSince },
    });
    const down = decideBacklogTarget(
      seen({ nowMs: t0 + 30 * minute, fleetProofsPerHour: 160 }),
      at(4, quietSince),
      policy,
    );
    expect(down).toMatchObject({
      action: "down",
      reason: "idle",
      previousTarget: 4,
      target: 1,
      state: { target: 1, quietSinceMs: t0 + 30 * minute },
    });
    // Some work still waiting: down to what keeps it within half the bound (6 x 90 s / 7.5 min = 2).
    expect(
      decideBacklogTarget(
        seen({
          nowMs: t0 + 30 * minute,
          waiting: 6,
          oldestPostedMs: t0 + 30 * minute,
          fleetProofsPerHour: 160,
        }),
        at(4, quietSince),
        policy,
      ),
    ).toMatchObject({ action: "down", target: 2 });
    // At the minimum it holds, however long the quiet.
    const min2 = resolveBacklogPolicy({ minInstances: 2, maxInstances: 4 });
    expect(
      decideBacklogTarget(seen({ nowMs: t0 + 10 * 60 * minute }), at(2, quietSince), min2),
    ).toMatchObject({
      action: "hold",
      reason: "quiet",
      target: 2,
    });
    // The first quiet step starts the clock.
    expect(decideBacklogTarget(seen({}), at(3), policy).state.quietSinceMs).toBe(t0);
  });

  it("does not flap on a backlog that swings around the bound: raised once, never lowered", () => {
    // The bound at 4 machines (160/h) is 40 waiting; the backlog swings 36 <-> 44 every minute for 6 h,
    // and the fleet proves at its target (machines come up at once).
    const roomy = resolveBacklogPolicy({ minInstances: 1, maxInstances: 8 });
    let state = at(4);
    const targets: number[] = [];
    for (let i = 0; i < 360; i++) {
      const d = decideBacklogTarget(
        seen({
          nowMs: t0 + i * minute,
          waiting: i % 2 === 0 ? 44 : 36,
          oldestPostedMs: t0 + i * minute,
          fleetProofsPerHour: state.target * machine,
        }),
        state,
        roomy,
      );
      state = d.state;
      targets.push(d.target);
    }
    const changes = targets.filter((t, i) => i > 0 && t !== targets[i - 1]).length;
    expect(targets[0]).toBe(5); // 44 at 160/h is 16.5 min: one more machine
    expect(changes).toBe(0);
    expect(new Set(targets)).toEqual(new Set([5]));
  });
});

import { describe, expect, it } from "vitest";
import { checkBenchmarkClaim, claimEventDetail, timedProofRecords } from "./benchmark-claim.js";

/** 12 proofs of 60 s each, one at a time: 60 proofs/hour. */
const honest60 = timedProofRecords({ count: 12, wallMs: 60_000 });
const model = 62.5;
const check = (claimedProofsPerHour: number, proofs = honest60, extra = {}) =>
  checkBenchmarkClaim({
    claimedProofsPerHour,
    proofs,
    modelProofsPerHour: model,
    minTimedProofs: 12,
    ...extra,
  });

describe("checkBenchmarkClaim", () => {
  it("accepts an honest claim at the claim, recomputing the same rate from the records", () => {
    const c = check(60);
    expect(c).toMatchObject({
      outcome: "accepted",
      recordsProofsPerHour: 60,
      judgedProofsPerHour: 60,
      countedProofsPerHour: 60,
      timedProofs: 12,
      windowMs: 720_000,
      maxInFlight: 1,
    });
    // A claim below what the records show stands: it is the agent's own, lower, figure.
    expect(check(55)).toMatchObject({ outcome: "accepted", countedProofsPerHour: 55 });
  });

  it("rebuilds the bench's own figure from the records: an honest small batch is not read low", () => {
    // Three 60 s proofs, two workers: the second worker's second proof never started (the batch
    // had 3). The bench reports slots x completions per slot-hour = 2 x 3 / (2 min + 1 min) = 120/h;
    // a count over the whole window (3 in 2 min) would read 90/h and call the honest 120 a lie.
    const proofs = [
      { index: 1, warmup: false, ok: true, wallMs: 60_000, submitMs: 0, settleMs: 60_000 },
      { index: 2, warmup: false, ok: true, wallMs: 60_000, submitMs: 0, settleMs: 60_000 },
      { index: 3, warmup: false, ok: true, wallMs: 60_000, submitMs: 60_000, settleMs: 120_000 },
    ];
    const c = check(120, proofs, { minTimedProofs: 3, modelProofsPerHour: 125 });
    expect(c).toMatchObject({ outcome: "accepted", recordsProofsPerHour: 120, countedProofsPerHour: 120 });
    // A claim well past what those records produce is still a lie.
    expect(check(160, proofs, { minTimedProofs: 3, modelProofsPerHour: 125 }).contradicted).toBe(true);
  });

  it("demotes a claim a little above its records to the records' rate, saying both", () => {
    const c = check(70);
    expect(c).toMatchObject({
      outcome: "demoted",
      contradicted: false,
      judgedProofsPerHour: 60,
      countedProofsPerHour: 60,
    });
    expect(c.reason).toMatch(
      /claimed 70\.0\/h, but 12 timed proofs over 720 s \(at most 1 at once\) produce 60\.0\/h/,
    );
  });

  it("refuses a claim far above its own records as a lie (contradicted), at any factor over 1.25", () => {
    const c = check(5000);
    expect(c).toMatchObject({
      outcome: "refused",
      contradicted: true,
      recordsProofsPerHour: 60,
      judgedProofsPerHour: 0,
      countedProofsPerHour: 0,
    });
    expect(c.reason).toMatch(/claimed 5000\.0\/h, but its own 12 timed proofs .* produce 60\.0\/h/);
    // At the factor it is still a demotion; the factor is configurable.
    expect(check(75).outcome).toBe("demoted");
    expect(check(76).contradicted).toBe(true);
    expect(check(5000, honest60, { contradictionFactor: 100 }).outcome).toBe("demoted");
  });

  it("refuses a claim without records, an absurd one, and too few timed proofs", () => {
    expect(check(1e300, [])).toMatchObject({
      outcome: "refused",
      countedProofsPerHour: 0,
      judgedProofsPerHour: 0,
    });
    expect(check(1e300, []).reason).toMatch(
      /claimed 1\.00e\+300\/h with 0 timed proofs carrying their times, fewer than the 12/,
    );
    // No records and a rate past the suspect bound: a lie. An old agent's plausible rate is not.
    expect(check(1e300, []).contradicted).toBe(true);
    expect(check(60, []).contradicted).toBe(false);
    expect(check(Number.POSITIVE_INFINITY).outcome).toBe("refused");
    expect(check(Number.NaN).outcome).toBe("refused");
    expect(check(60, timedProofRecords({ count: 11, wallMs: 60_000 })).outcome).toBe("refused");
    // An old agent's records carry no times: refused with the reason, not a crash.
    const old = honest60.map(({ submitMs: _s, settleMs: _e, ...r }) => r);
    expect(check(60, old).reason).toMatch(/upgrade the image/);
    // Failed and warmup proofs do not count.
    const failed = honest60.map((p) => ({ ...p, ok: p.index % 2 === 0 }));
    expect(check(60, failed).outcome).toBe("refused");
  });

  it("refuses records that settle before their submit or span no time", () => {
    const backwards = honest60.map((p) => (p.index === 3 ? { ...p, settleMs: 0, submitMs: 10 } : p));
    expect(check(60, backwards).reason).toMatch(/settles before it was submitted/);
    const instant = honest60.map((p) => ({ ...p, submitMs: 5, settleMs: 5 }));
    expect(check(60, instant).reason).toMatch(/span no time/);
  });

  it("caps concurrency by the run's own: records with more in flight than it kept are refused", () => {
    // 12 proofs all in the same minute claim 720/h, with 12 in flight.
    const stacked = timedProofRecords({ count: 12, wallMs: 60_000, concurrency: 12 });
    expect(check(720, stacked, { statedConcurrency: 2 })).toMatchObject({
      outcome: "refused",
      maxInFlight: 12,
    });
    // Two at a time, as stated: 120/h from the records.
    const two = timedProofRecords({ count: 12, wallMs: 60_000, concurrency: 2 });
    expect(check(120, two, { statedConcurrency: 2 })).toMatchObject({
      outcome: "accepted",
      maxInFlight: 2,
      recordsProofsPerHour: 120,
    });
  });

  it("holds a rate over 3x the model as suspect, counted at the model's rate", () => {
    const fast = timedProofRecords({ count: 12, wallMs: 3_600_000 / 250 });
    const c = check(250, fast);
    expect(c).toMatchObject({ outcome: "suspect", judgedProofsPerHour: 250, countedProofsPerHour: model });
    expect(c.reason).toMatch(/over 3x the model's 62\.5\/h/);
    // At 3x the model exactly it is not suspect; the factor is configurable.
    const at3 = timedProofRecords({ count: 12, wallMs: 3_600_000 / (3 * model) });
    expect(check(3 * model, at3).outcome).toBe("accepted");
    expect(check(250, fast, { suspectFactor: 5 }).outcome).toBe("accepted");
    // Without a model rate there is no bound.
    expect(check(250, fast, { modelProofsPerHour: undefined }).outcome).toBe("accepted");
  });

  it("writes an event detail with the claim, the recomputed and the model's rate", () => {
    expect(claimEventDetail(check(70))).toMatchObject({
      outcome: "demoted",
      contradicted: false,
      claimedProofsPerHour: 70,
      recordsProofsPerHour: 60,
      modelProofsPerHour: model,
      countedProofsPerHour: 60,
    });
    expect(claimEventDetail(check(Number.POSITIVE_INFINITY, [])).claimedProofsPerHour).toBeNull();
  });
});

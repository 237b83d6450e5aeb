import { describe, expect, it } from "vitest";
import { activeMember, rankedOffers, vettingMember } from "../test-support/planner-fixtures.js";
import { type FleetPlanInput, planFleetStep } from "./run-planner.js";

const offers = rankedOffers;
const active = activeMember;
const vetting = vettingMember;
const summary = (input: FleetPlanInput) =>
  planFleetStep(input).map((d) => `${d.action} ${"offerId" in d ? d.offerId : d.instanceId}`);

describe("planFleetStep", () => {
  it.each<[string, FleetPlanInput, string[]]>([
    [
      "rents the best-ranked offers up to the target",
      { members: [], ranked: offers([1, 50, 1], [2, 50, 0.5], [3, 50, 2]), target: { proofsPerHour: 100 } },
      ["rent 2", "rent 1"],
    ],
    [
      "counts vetting machines at their estimate",
      { members: [vetting("a", 60, 1)], ranked: offers([1, 50, 1]), target: { proofsPerHour: 100 } },
      ["rent 1"],
    ],
    [
      "rents no more than maxVetting at once",
      {
        members: [],
        ranked: offers([1, 10, 1], [2, 10, 1], [3, 10, 1]),
        target: { proofsPerHour: 100 },
        maxVetting: 2,
      },
      ["rent 1", "rent 2"],
    ],
    [
      "skips offers that break --max-dph and takes a cheaper one",
      {
        members: [active("a", 50, 1)],
        ranked: offers([1, 100, 1.5], [2, 60, 0.9]),
        target: { proofsPerHour: 100 },
        maxDph: 2,
      },
      ["rent 2"],
    ],
    [
      "destroys the dearest per proof when over target",
      {
        members: [active("a", 60, 1), active("b", 60, 0.5), active("c", 60, 2)],
        ranked: [],
        target: { proofsPerHour: 100 },
      },
      ["destroy c"],
    ],
    [
      "keeps what the target needs even when dear",
      { members: [active("a", 60, 1), active("b", 60, 3)], ranked: [], target: { proofsPerHour: 100 } },
      [],
    ],
    [
      "by instance count",
      {
        members: [active("a", 60, 1), active("b", 60, 3), active("c", 60, 2)],
        ranked: [],
        target: { instances: 2 },
      },
      ["destroy b"],
    ],
    [
      "replaces a dead machine (under target again)",
      { members: [active("a", 60, 1)], ranked: offers([7, 60, 1]), target: { instances: 2 } },
      ["rent 7"],
    ],
    [
      "at target, tries an offer that beats the dearest by the margin",
      {
        members: [active("a", 50, 1), active("b", 50, 2)],
        ranked: offers([4, 50, 1]),
        target: { proofsPerHour: 100 },
      },
      ["rent 4"],
    ],
    [
      "at target, no trial inside the margin",
      {
        members: [active("a", 50, 1), active("b", 50, 1.1)],
        ranked: offers([4, 50, 1]),
        target: { proofsPerHour: 100 },
      },
      [],
    ],
    [
      // Without the dearest (100/h) the rest make 220: a 60/h trial could not take its place, so
      // the over-target rule would drop the trial itself; a 90/h one can.
      "at target, no trial too small to take the dearest's place",
      {
        members: [active("dear", 100, 3), active("cheap", 220, 2)],
        ranked: offers([5, 60, 0.3], [6, 90, 0.6]),
        target: { proofsPerHour: 300 },
      },
      ["rent 6"],
    ],
  ])("%s", (_name, input, expected) => {
    expect(summary(input)).toEqual(expected);
  });

  it("says why in every decision", () => {
    const decisions = planFleetStep({
      members: [active("c", 60, 2), active("a", 60, 1), active("b", 60, 1)],
      ranked: [],
      target: { proofsPerHour: 100 },
    });
    expect(decisions[0]?.reason).toMatch(/over target .* dearest per proof at \$33\.33 per 1000 proofs/);
  });
});

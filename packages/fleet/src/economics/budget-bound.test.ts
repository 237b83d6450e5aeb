import { describe, expect, it } from "vitest";
import { activeMember, rankedOffers } from "../test-support/planner-fixtures.js";
import { budgetBound } from "./budget-bound.js";
import { type FleetPlanInput, planFleetStep } from "./run-planner.js";

const offers = rankedOffers;
const active = activeMember;
const boundOf = (input: FleetPlanInput) =>
  budgetBound({ ...input, decisions: planFleetStep(input), maxDph: input.maxDph });

describe("budgetBound", () => {
  it("says the cap holds the fleet under target when the next offer would pass it", () => {
    const input: FleetPlanInput = {
      members: [active("a", 50, 1)],
      ranked: offers([1, 50, 1.5], [2, 50, 2]),
      target: { proofsPerHour: 200 },
      maxDph: 2.6,
    };
    // Offer 1 fits (1 + 1.5 = 2.5); then 2 would reach 4.5 $/h: 100 of 200 is all the cap allows.
    expect(boundOf(input)).toEqual({
      dphPerHour: 2.5,
      maxDph: 2.6,
      capacity: 100,
      goal: 200,
      cheapestLeftOutDph: 2,
    });
  });

  it("is silent without a cap, at target, or with nothing left to rent", () => {
    const base: FleetPlanInput = {
      members: [active("a", 50, 1)],
      ranked: offers([1, 50, 1.5]),
      target: { proofsPerHour: 200 },
      maxDph: undefined,
    };
    expect(boundOf(base)).toBeUndefined();
    expect(boundOf({ ...base, target: { proofsPerHour: 90 }, maxDph: 3 })).toBeUndefined();
    // Under target with room in the cap but no offer left: a market problem, not the budget.
    expect(boundOf({ ...base, maxDph: 10 })).toBeUndefined();
    // Counting instances: one machine for a target of two, the only offer over the cap.
    expect(boundOf({ ...base, target: { instances: 2 }, maxDph: 2 })).toMatchObject({ capacity: 1, goal: 2 });
  });
});

import { describe, expect, it } from "vitest";
import { createPaintOrder } from "./paint-order.js";

/** A read whose answer the test releases. */
function pendingRead(order: ReturnType<typeof createPaintOrder>, name: string, painted: string[]) {
  const mayPaint = order.begin();
  return {
    answer() {
      if (mayPaint()) painted.push(name);
    },
  };
}

describe("createPaintOrder", () => {
  it("drops an older read that answers after a newer one painted", () => {
    const order = createPaintOrder();
    const painted: string[] = [];
    const old = pendingRead(order, "stale rows", painted);
    const fresh = pendingRead(order, "fresh rows", painted);
    fresh.answer();
    old.answer();
    expect(painted).toEqual(["fresh rows"]);
  });

  it("paints every read that answers in order, even while newer ones are always in flight", () => {
    const order = createPaintOrder();
    const painted: string[] = [];
    // Events faster than reads: a new read begins before each one answers.
    let inFlight = pendingRead(order, "read 1", painted);
    for (let n = 2; n <= 4; n++) {
      const next = pendingRead(order, `read ${n}`, painted);
      inFlight.answer();
      inFlight = next;
    }
    inFlight.answer();
    expect(painted).toEqual(["read 1", "read 2", "read 3", "read 4"]);
  });
});

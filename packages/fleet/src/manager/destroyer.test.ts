import { createVastClient } from "@cuzkit/vast";
import { afterEach, describe, expect, it } from "vitest";
import type { InstanceRecord } from "../store/records.js";
import { startTestFleet, type TestFleet } from "../test-support/test-fleet.js";
import type { FleetVast } from "./context.js";
import type { FleetManager } from "./fleet-manager.js";

let fleet: TestFleet | undefined;
afterEach(async () => {
  await fleet?.close();
  fleet = undefined;
});

const destroyPath = (record: InstanceRecord) => `/api/v0/instances/${record.vastId}/`;

/**
 * A second manager on the test fleet's store whose Vast destroys wait at a gate the test opens: the
 * first destroy's answer is held while something else runs. `destroying` resolves when a
 * destroy reaches Vast.
 */
function gatedDestroys(t: TestFleet): { manager: FleetManager; destroying: Promise<void>; open(): void } {
  const real = createVastClient({ apiKey: t.fake.apiKey, baseUrl: t.fake.url, rateLimit: false });
  let open = () => {};
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  let reached = () => {};
  const destroying = new Promise<void>((resolve) => {
    reached = resolve;
  });
  const vast: FleetVast = {
    ...real,
    listInstances: real.listInstances,
    async destroyInstance(id) {
      reached();
      await gate;
      return real.destroyInstance(id);
    },
  };
  return { manager: t.restart(vast), destroying, open };
}

describe("a destroy while another is under way", () => {
  it("the monitor's pass shares the operator's attempt: one DELETE, both see destroyed", async () => {
    fleet = await startTestFleet();
    const record = await fleet.manager.deploy(1002);
    const gated = gatedDestroys(fleet);
    // The operator's destroy reaches Vast and waits for its answer; meanwhile the monitor's pass
    // finds the instance in `destroying` with no attempt scheduled, as it would after a crash.
    const operator = gated.manager.destroy(record.id);
    await gated.destroying;
    expect((await fleet.manager.store.require(record.id)).state).toBe("destroying");
    const pass = gated.manager.monitor();
    gated.open();
    const [destroyed, summary] = await Promise.all([operator, pass]);
    expect(destroyed.state).toBe("destroyed");
    expect(summary.destroyAttempts).toBe(1);
    expect(fleet.fake.requestsTo(destroyPath(record), "DELETE")).toHaveLength(1);
    expect((await fleet.manager.store.require(record.id)).state).toBe("destroyed");
  });

  it("an attempt whose instance reconcile found gone meanwhile ends destroyed, not refused", async () => {
    fleet = await startTestFleet();
    const record = await fleet.manager.deploy(1002);
    const gated = gatedDestroys(fleet);
    const operator = gated.manager.destroy(record.id);
    await gated.destroying;
    // While the DELETE waits, the instance is gone from Vast and reconcile records it destroyed.
    fleet.fake.instances.delete(record.vastId as number);
    expect((await fleet.manager.reconcile()).gone).toEqual([record.id]);
    gated.open();
    const destroyed = await operator;
    expect(destroyed.state).toBe("destroyed");
    // Destroyed once, by reconcile; the attempt's own write found it done.
    const events = await fleet.manager.store.events({ instanceId: record.id });
    expect(events.filter((e) => e.toState === "destroyed")).toHaveLength(1);
  });
});

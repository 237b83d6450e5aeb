import { describe, expect, it } from "vitest";
import { createAdmission } from "./admission.js";
import { AbortedError } from "./errors.js";

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

describe("createAdmission", () => {
  it("runs at most maxInFlight tasks and starts the rest in FIFO order", async () => {
    const admission = createAdmission(2);
    const started: number[] = [];
    const gates = [deferred(), deferred(), deferred(), deferred(), deferred()];
    const runs = gates.map((gate, i) =>
      admission.run(async () => {
        started.push(i);
        await gate.promise;
        return i;
      }),
    );
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    expect(admission.active).toBe(2);
    expect(admission.pending).toBe(3);
    gates[1]!.resolve();
    await runs[1];
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual([0, 1, 2]);
    gates[0]!.resolve();
    gates[2]!.resolve();
    await Promise.all([runs[0], runs[2]]);
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual([0, 1, 2, 3, 4]);
    gates[3]!.resolve();
    gates[4]!.resolve();
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3, 4]);
  });

  it("lets a waiting caller abort and leave the queue without running", async () => {
    const admission = createAdmission(1);
    const gate = deferred();
    const first = admission.run(() => gate.promise);
    const controller = new AbortController();
    let ran = false;
    const second = admission.run(async () => {
      ran = true;
    }, controller.signal);
    controller.abort();
    await expect(second).rejects.toBeInstanceOf(AbortedError);
    gate.resolve();
    await first;
    await new Promise((r) => setImmediate(r));
    expect(ran).toBe(false);
    expect(admission.active).toBe(0);
    await expect(admission.run(async () => 5)).resolves.toBe(5);
  });

  it("rejects at once when the signal already fired, and passes task errors through", async () => {
    const admission = createAdmission(1);
    await expect(admission.run(async () => 1, AbortSignal.abort())).rejects.toBeInstanceOf(AbortedError);
    await expect(
      admission.run(async () => {
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
  });
});

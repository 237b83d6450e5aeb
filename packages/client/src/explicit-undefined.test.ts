import { describe, expect, it } from "vitest";
import { defaultResubmit, resolveClientOptions } from "./options.js";

// Options are typed `x?: T | undefined`: passing `x: undefined` must mean "not given".

describe("a client option passed as undefined keeps its default", () => {
  it("resubmit: { wpost: undefined } keeps wpost's default budget; the others given still apply", () => {
    const resolved = resolveClientOptions({
      address: "127.0.0.1:9820",
      resubmit: { wpost: undefined, porep: 3 },
      maxInFlight: undefined,
      keepalive: { pingIntervalMs: undefined },
    });
    expect(resolved.resubmit).toEqual({ ...defaultResubmit, porep: 3 });
    expect(resolved.resubmit.wpost).toBe(2);
    expect(resolved.maxInFlight).toBe(resolveClientOptions({ address: "127.0.0.1:9820" }).maxInFlight);
    expect(resolved.keepalive).toEqual(resolveClientOptions({ address: "127.0.0.1:9820" }).keepalive);
  });
});

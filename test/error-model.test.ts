// One error model across the packages: every exported error class takes
// `(message, { hint?, retryable?, cause?, ...context })`, keeps what it is given, and carries a
// code from its package's closed list.
import * as bench from "@cuzkit/bench";
import * as client from "@cuzkit/client";
import * as core from "@cuzkit/core";
import { CuzkitError } from "@cuzkit/core";
import * as fleet from "@cuzkit/fleet";
import * as fleetAgent from "@cuzkit/fleet/agent";
import * as sim from "@cuzkit/sim";
import * as tuner from "@cuzkit/tuner";
import * as vast from "@cuzkit/vast";
import { describe, expect, it } from "vitest";
import { errorContext, exportedErrorClasses } from "./support/error-classes.js";

/** The closed code list each package publishes, where it has one (a base class alone says INTERNAL). */
const codeLists: Record<string, readonly string[] | undefined> = {
  client: [...client.clientErrorCodes, "INTERNAL"],
  vast: [...vast.vastErrorCodes, "INTERNAL"],
  fleet: [...fleet.fleetErrorCodes, "INTERNAL"],
};

/** Bad input is never worth repeating as it is: these classes take no `retryable`. */
const neverRetryable = new Set<unknown>([core.InvalidInputError, core.C1InputError]);

// The agent's errors are in its own entry, @cuzkit/fleet/agent.
const errorClasses = Object.entries({
  core,
  client,
  vast,
  sim,
  tuner,
  bench,
  fleet: { ...fleet, ...fleetAgent },
}).flatMap(([pkg, module]) =>
  exportedErrorClasses(module).map(([name, errorClass]) => [`${pkg}.${name}`, pkg, errorClass] as const),
);

describe("the error model", () => {
  it("finds the error classes of every package", () => {
    const packages = new Set(errorClasses.map(([, pkg]) => pkg));
    expect([...packages].sort()).toEqual(["bench", "client", "core", "fleet", "sim", "tuner", "vast"]);
    expect(errorClasses.length).toBeGreaterThan(40);
  });

  it.each(errorClasses)(
    "%s takes (message, options) and keeps what it is given",
    (_name, pkg, ErrorClass) => {
      const cause = new Error("underneath");
      const error = new ErrorClass("it went wrong", {
        ...errorContext,
        hint: "do this",
        retryable: true,
        cause,
      });
      expect(error).toBeInstanceOf(CuzkitError);
      expect(error).toBeInstanceOf(ErrorClass);
      expect(error.name).toBe(ErrorClass.name);
      expect(error.message).toMatch(/it went wrong/);
      expect(error.hint).toBe("do this");
      expect(error.retryable).toBe(!neverRetryable.has(ErrorClass));
      expect(error.cause).toBe(cause);
      expect(error.code).toMatch(/^[A-Z][A-Z0-9_]*$/);
      const codes = codeLists[pkg];
      if (codes !== undefined) expect(codes).toContain(error.code);
    },
  );
});

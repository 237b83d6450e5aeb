import { describe, expect, it } from "vitest";
import { dependencyClosure, sdkPackages } from "../scripts/dependency-closure.mjs";

// The SDK packages go into users' applications: installing one must build nothing (no native
// addon such as better-sqlite3, no install script), so it works on a machine without a compiler
// and with --ignore-scripts. Read from node_modules as installed, production dependencies only.
describe("SDK packages install without native builds", () => {
  it.each(sdkPackages)("%s: no dependency with an install script or binding.gyp", (name) => {
    const builds = (dependencyClosure(name) as { name: string; version: string; build?: string }[])
      .filter((dep) => dep.build !== undefined)
      .map((dep) => `${dep.name}@${dep.version}: ${dep.build}`);
    expect(builds).toEqual([]);
  });

  it("the check sees a native build where there is one (the fleet's optional better-sqlite3)", () => {
    const closure = dependencyClosure("@cuzkit/fleet") as { name: string; build?: string }[];
    const sqlite = closure.find((dep) => dep.name === "better-sqlite3");
    expect(sqlite?.build).toMatch(/install script|binding\.gyp/);
    expect(closure.some((dep) => dep.name === "@cuzkit/client")).toBe(true);
  });
});

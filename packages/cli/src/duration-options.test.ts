import type { Command } from "commander";
import { describe, expect, it } from "vitest";
import { createProgram } from "./program.js";
import { memoryIO } from "./test-support/memory-io.js";

/** Every option of every command, with the command path that owns it. */
function allOptions(
  command: Command,
  path: string[] = [],
): { path: string; flags: string; parse: unknown }[] {
  const here = command.options.map((option) => ({
    path: [...path, command.name()].join(" "),
    flags: option.flags,
    parse: option.parseArg,
  }));
  return [...here, ...command.commands.flatMap((sub) => allOptions(sub, [...path, command.name()]))];
}

describe("duration options", () => {
  const options = allOptions(createProgram(memoryIO().io));
  const durations = options.filter((option) => option.flags.includes("<duration>"));

  it("are found across the commands (status, prove, bench, agent, tune, fleet)", () => {
    const paths = new Set(durations.map((option) => option.path.split(" ")[1]));
    for (const command of ["status", "prove", "bench", "agent", "tune", "fleet"])
      expect(paths).toContain(command);
  });

  it.each(durations.map((option) => [`${option.path} ${option.flags}`, option] as const))(
    "%s refuses a bare number and reads 1h30m",
    (_name, option) => {
      const parse = option.parse as (text: string, previous: unknown) => unknown;
      expect(typeof parse).toBe("function");
      expect(() => parse("5", undefined)).toThrow(
        expect.objectContaining({
          code: "INVALID_INPUT",
          hint: "5s? durations need a unit: 500ms, 5s, 2m, 1h30m",
        }),
      );
      expect(parse("1h30m", undefined)).toBe(5_400_000);
    },
  );

  it("no option that reads a time takes a unitless value unless its name says the unit", () => {
    const timeNamed = options.filter((option) =>
      /--[a-z-]*(timeout|every|interval|period|after|heartbeat)\b[^<]*</.test(option.flags),
    );
    for (const option of timeNamed) {
      expect(`${option.path} ${option.flags}`).toMatch(/<duration>|<seconds>|<minutes>/);
    }
  });
});

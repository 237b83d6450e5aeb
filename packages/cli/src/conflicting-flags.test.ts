// Flags that contradict each other, or sizes without a unit, are refused with a message in flag
// terms before any work starts: nothing is printed on stdout, nothing is dialled or written.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "./run-cli.js";
import { memoryIO } from "./test-support/memory-io.js";

let dir = "";
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "cuzkit-flags-"));
  writeFileSync(join(dir, "vanilla.json"), "[]");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the CLI; a daemon address nobody listens on, so a command that got past the checks would fail differently. */
async function run(args: string[]) {
  const { io, stdout, stderr } = memoryIO({
    cwd: dir,
    env: { CUZK_ADDR: `unix://${join(dir, "none.sock")}` },
  });
  const code = await runCli(args, io);
  return { code, stdout: stdout(), stderr: stderr() };
}

const machine = ["--ram", "256GiB", "--cores", "32", "--gpus", "2xRTX3090"];

describe("conflicting flags", () => {
  it.each([
    [
      "demo --profile with the machine flags",
      ["demo", "--profile", "bc-canada-125gb", ...machine],
      /^error: --profile cannot be combined with --ram\/--cores\/--gpus/,
      /--profile NAME .* or describe your own/,
    ],
    [
      "demo --profile with --detect",
      ["demo", "--profile", "bc-canada-125gb", "--detect"],
      /^error: --profile cannot be combined/,
      /hint: /,
    ],
    [
      "prove --synthetic with --vanilla",
      ["prove", "--synthetic", "--vanilla", "vanilla.json"],
      /^error: --vanilla is not used by --kind porep/,
      /--kind porep reads --c1, --synthetic; remove --vanilla/,
    ],
    [
      "prove --kind winning with --c1",
      ["prove", "--kind", "winning", "--vanilla", "vanilla.json", "--c1", "c1.json"],
      /^error: --c1 is not used by --kind winning/,
      /remove --c1/,
    ],
    [
      "prove --kind snap with --partition",
      ["prove", "--kind", "snap", "--vanilla", "vanilla.json", "--partition", "2"],
      /^error: --partition is not used by --kind snap/,
      /hint: /,
    ],
    [
      "bench --max-restarts without --spawn",
      ["bench", "--synthetic", "--max-restarts", "5"],
      /^error: --max-restarts is only used with --spawn/,
      /add --spawn/,
    ],
    [
      "bench --on-crash without --spawn",
      ["bench", "--synthetic", "--on-crash", "restart"],
      /^error: --on-crash is only used with --spawn/,
      /add --spawn/,
    ],
    [
      "bench --max-restarts without --on-crash restart",
      ["bench", "--synthetic", "--spawn", "cuzk-daemon", "--config", "x.toml", "--max-restarts", "5"],
      /^error: --max-restarts is only used with --on-crash restart/,
      /add --on-crash restart/,
    ],
    [
      "bench --warmup-timeout with --warmup none",
      ["bench", "--synthetic", "--warmup", "none", "--warmup-timeout", "90m"],
      /^error: --warmup-timeout is not used with --warmup none/,
      /leave --warmup-timeout out/,
    ],
  ])("%s", async (_name, args, message, hint) => {
    const result = await run(args);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(message);
    expect(result.stderr).toMatch(hint);
  });
});

describe("the machine flags, the same on every command", () => {
  it.each([
    ["tune"],
    ["bench", "--synthetic", "--concurrency", "auto"],
    ["demo"],
    ["sim", "--listen", "127.0.0.1:0"],
  ])("%s refuses a size without a unit", async (...args) => {
    const result = await run([...args, "--ram", "256", "--cores", "32", "--gpus", "2xRTX3090"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error: the --ram size "256" has no unit/);
    expect(result.stderr).toMatch(/did you mean "256GiB"/);
  });

  it.each([["tune"], ["bench", "--synthetic", "--concurrency", "auto"], ["demo"]])(
    "%s needs --ram, --cores and --gpus together",
    async (...args) => {
      const result = await run([...args, "--ram", "256GiB", "--cores", "32"]);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/--gpus missing/);
      expect(result.stderr).toMatch(/hint: pass --detect .* --ram 256GiB --cores 32 --gpus 2xRTX3090/);
    },
  );

  it("--cores is a whole number on every command", async () => {
    for (const command of [["tune"], ["demo"], ["sim", "--listen", "127.0.0.1:0"]]) {
      const result = await run([...command, "--ram", "256GiB", "--cores", "many", "--gpus", "none"]);
      expect(result.stderr).toMatch(
        /^error: --cores must be a whole number of at least 1, got "many"\nhint: such as --cores 32/,
      );
    }
  });
});

describe("tune --out", () => {
  it("refuses a directory clearly and leaks no temporary file name", async () => {
    mkdirSync(join(dir, "out"));
    const before = readdirSync(dir).sort();
    const result = await run(["tune", ...machine, "--format", "toml", "--out", join(dir, "out")]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `error: --out ${join(dir, "out")} is a directory\nhint: give a file path, such as --out ${join(dir, "out", "cuzk.toml")}\n`,
    );
    expect(readdirSync(dir).sort()).toEqual(before);
    expect(readdirSync(join(dir, "out"))).toEqual([]);
  });
});

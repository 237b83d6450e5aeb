import { describe, expect, it } from "vitest";
import { runCli } from "../run-cli.js";
import { memoryIO } from "../test-support/memory-io.js";

const machine = ["--synthetic", "--ram", "251GiB", "--cores", "32", "--gpus", "2xRTX3090"];

describe("cuzkit agent: the page and /status flags", () => {
  it("refuses --ui-listen beyond loopback without --ui-token, before anything starts", async () => {
    const { io, stderr, stdout } = memoryIO({ cwd: process.cwd() });
    expect(await runCli(["agent", ...machine, "--ui-listen", "0.0.0.0:0"], io)).toBe(1);
    expect(stderr()).toMatch(
      /error: --ui-listen 0\.0\.0\.0:0 is beyond loopback and no --ui-token was given\nhint: pass --ui-token/,
    );
    expect(stdout()).toBe("");
  });

  it("refuses a --status-listen that is not HOST:PORT, saying how to turn it off", async () => {
    const { io, stderr } = memoryIO({ cwd: process.cwd() });
    expect(await runCli(["agent", ...machine, "--status-listen", "http://x/status"], io)).toBe(1);
    expect(stderr()).toMatch(
      /--status-listen "http:\/\/x\/status" is not HOST:PORT\nhint: .*--status-listen off/,
    );
  });

  it("warns that --ui-token on the command line shows in ps, without repeating it", async () => {
    const { io, stderr } = memoryIO({ cwd: process.cwd() });
    const token = "page_0123456789abcdef";
    const args = ["agent", ...machine, "--ui-token", token, "--status-listen", "http://x/status"];
    expect(await runCli(args, io)).toBe(1);
    expect(stderr()).toContain(
      "warning: --ui-token on the command line is visible to other users (ps) and kept in shell history; use CUZKIT_UI_TOKEN",
    );
    expect(stderr()).not.toContain(token);
  });
});

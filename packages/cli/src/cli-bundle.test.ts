import { type ChildProcess, execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { cuzkitArgv, cuzkitBundle, repoRoot } from "../../../test/support/cuzkit-process.js";
import { runCli } from "./run-cli.js";
import { memoryIO } from "./test-support/memory-io.js";

// The real-process tests run `cuzkit` from the bundle the vitest globalSetup builds
// (test/support/cli-bundle-setup.ts), not from the sources: these tests fail when the bundle
// does not behave as the sources do.

const run = promisify(execFile);

/** What `cuzkit <args>` prints in-process, from the sources (no environment, as the child gets). */
async function inProcess(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const { io, stdout, stderr } = memoryIO({ env: {} });
  const code = await runCli(args, io);
  return { code, stdout: stdout(), stderr: stderr() };
}

/** What `cuzkit <args>` prints as a process started by cuzkitArgv(), with an empty environment. */
async function asProcess(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const [node, base] = cuzkitArgv();
  try {
    const { stdout, stderr } = await run(node, [...base, ...args], { env: {}, timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe("the bundled cuzkit command", () => {
  it("is what the real-process tests start", () => {
    const bundle = cuzkitBundle();
    expect(bundle).toMatch(/cuzkit\.mjs$/);
    expect(cuzkitArgv()).toEqual([process.execPath, [bundle]]);
  });

  it.each([
    "--help",
    "--version",
    "sim --help",
    "bench --help",
    "agent --help",
    "fleet --help",
    "fleet serve --help",
    "vast --help",
  ])("prints what the sources print: cuzkit %s", async (line) => {
    const args = line.split(" ");
    const [fromBundle, fromSource] = await Promise.all([asProcess(args), inProcess(args)]);
    expect(fromSource.code).toBe(0);
    expect(fromSource.stdout).not.toBe("");
    expect(fromBundle).toEqual(fromSource);
  });

  describe("fleet serve (lazily loaded fleet, SQLite store, dashboard assets)", () => {
    let dir = "";
    let child: ChildProcess | undefined;
    afterEach(async () => {
      if (child !== undefined && child.exitCode === null && child.signalCode === null) {
        child.kill("SIGKILL");
        await once(child, "exit");
      }
      child = undefined;
      await rm(dir, { recursive: true, force: true });
    });

    it("serves the dashboard's committed web bundle, found next to the fleet's sources", async () => {
      dir = await mkdtemp(join(tmpdir(), "cuzkit-bundle-serve-"));
      const [node, base] = cuzkitArgv();
      const args = [
        ...["fleet", "serve", "--db", join(dir, "fleet.db"), "--listen", "127.0.0.1:0"],
        ...[
          "--min-proofs-per-hour",
          "40",
          "--manager-url",
          "http://127.0.0.1:1",
          "--allow-loopback-manager-url",
        ],
      ];
      const env = { HOME: dir, XDG_STATE_HOME: dir, CUZKIT_FLEET_ADMIN_TOKEN: "a".repeat(32) };
      const started = spawn(node, [...base, ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
      child = started;
      let stderr = "";
      started.stderr.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      const url = await new Promise<string>((resolve, reject) => {
        createInterface({ input: started.stdout }).on("line", (line) => {
          const match = /^dashboard (\S+)\/ /.exec(line);
          if (match?.[1]) resolve(match[1]);
        });
        started.once("exit", (code) => reject(new Error(`fleet serve exited with ${code}\n${stderr}`)));
      });

      const page = await fetch(`${url}/`);
      expect(page.status).toBe(200);
      const version = /\/assets\/dashboard\.js\?v=(\w+)/.exec(await page.text())?.[1];
      expect(version).toBeDefined();
      const script = await fetch(`${url}/assets/dashboard.js?v=${version}`);
      expect(script.status).toBe(200);
      expect(await script.text()).toBe(
        await readFile(join(repoRoot, "packages/fleet/web/dashboard.js"), "utf8"),
      );

      started.kill("SIGTERM");
      const [code] = (await once(started, "exit")) as [number | null];
      expect(code).toBe(0);
    });
  });
});

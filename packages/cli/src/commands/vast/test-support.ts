// Shared set-up of the `cuzkit vast` command tests: a fake Vast server, a temporary HOME, and a
// runner that checks every output for the API key. Not exported from the package.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createManualClock } from "@cuzkit/core/testing";
import { type FakeVastServer, type FakeVastServerOptions, startFakeVastServer } from "@cuzkit/vast/testing";
import type { Command } from "commander";
import type { CliIO } from "../../io.js";
import { memorySink, parseCapturingError } from "../../testing/memory-io.js";
import { createVastCommand, type VastCommandDeps } from "./index.js";

/** A fake server with its HOME, and a runner of `cuzkit vast ...args` against it. */
export interface VastCliHarness {
  server: FakeVastServer;
  home: string;
  /** The manual clock the client sleeps on (and the server's rate limits read). */
  clock: ReturnType<typeof createManualClock>;
  /**
   * Runs the command in-process. Fails the test when stdout or stderr contains the API key (or
   * the per-instance keys the fake hands out): every output of every test is checked.
   */
  run(
    args: string[],
    deps?: VastCommandDeps,
    env?: Record<string, string | undefined>,
  ): Promise<{ stdout: string; stderr: string; error: unknown }>;
  close(): Promise<void>;
}

/**
 * Starts the harness. The fake's own rate limits are off unless `serverOptions` turn them on;
 * the client paces nothing unless a test passes `clientOptions.rateLimit`.
 */
export async function startVastCli(serverOptions: FakeVastServerOptions = {}): Promise<VastCliHarness> {
  const clock = createManualClock(1_000_000);
  const server = await startFakeVastServer({ rateLimits: false, now: () => clock.now(), ...serverOptions });
  const home = mkdtempSync(join(tmpdir(), "cuzkit-vast-cli-"));
  return {
    server,
    home,
    clock,
    async run(args, deps = {}, env = {}) {
      const stdout = memorySink();
      const stderr = memorySink();
      const io: CliIO = {
        stdout,
        stderr,
        env: { VAST_API_KEY: server.apiKey, VAST_URL: server.url, HOME: home, ...env },
        cwd: home,
      };
      const command = createVastCommand(io, {
        stdinIsTTY: false,
        ...deps,
        clientOptions: {
          sleep: clock.sleep,
          clock,
          rateLimit: false,
          random: () => 0.5,
          ...deps.clientOptions,
        },
      });
      exitOverrideAll(command);
      const error = await parseCapturingError(command, args);
      const out = { stdout: stdout.text(), stderr: stderr.text(), error };
      const errorText = error instanceof Error ? `${error.message} ${JSON.stringify(error)}` : String(error);
      for (const text of [out.stdout, out.stderr, errorText]) {
        if (text.includes(server.apiKey) || /inst-key-\d+/.test(text)) {
          throw new Error(`a secret was printed by \`cuzkit vast ${args.join(" ")}\`:\n${text}`);
        }
      }
      return out;
    },
    async close() {
      await server.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

function exitOverrideAll(command: Command): void {
  command.exitOverride();
  for (const sub of command.commands) exitOverrideAll(sub);
}

// One harness for the command tests that talk to Vast.ai: a fake Vast server, a temporary HOME,
// and a `cuzkit` command run in-process against them, with every output checked for secrets.
// `cuzkit vast` (vast-cli.ts) and `cuzkit fleet` (fleet-cli.ts) build on it. Not exported from the package.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type FakeVastServer, type FakeVastServerOptions, startFakeVastServer } from "@cuzkit/vast/testing";
import type { Command } from "commander";
import { afterEach, beforeEach } from "vitest";
import type { CliIO } from "../io.js";
import { memorySink, parseCapturingError } from "./memory-io.js";

/** What one in-process run printed, and the error it ended with (undefined when none). */
export interface CommandRun {
  stdout: string;
  stderr: string;
  error: unknown;
}

/** A fake Vast server with its HOME, and a runner of one `cuzkit` command against them. */
export interface FakeVastCli<Deps> {
  server: FakeVastServer;
  home: string;
  /**
   * Runs the command with `args` in-process. `env` adds to (or, with undefined, removes from) the
   * default VAST_API_KEY, VAST_URL and HOME. Fails the test when stdout, stderr or the error holds
   * the API key or a per-instance key the fake hands out: every output of every test is checked.
   */
  run(args: string[], deps?: Deps, env?: Record<string, string | undefined>): Promise<CommandRun>;
  /** Stops the server and removes HOME. */
  close(): Promise<void>;
}

/** How to build a harness for one command. */
export interface FakeVastCliOptions<Deps> {
  /** The command's name, for the leak message (`cuzkit NAME ...`). */
  name: string;
  /** Builds the command under test on the harness's IO; `deps` are what the test passed, or `{}`. */
  command(io: CliIO, deps: Deps): Command;
  /** The fake server's options. Default: its rate limits off. */
  server?: FakeVastServerOptions | undefined;
}

/** Starts a fake Vast server and a temporary HOME, and returns a runner of the command against them. */
export async function startFakeVastCli<Deps extends object>(
  options: FakeVastCliOptions<Deps>,
): Promise<FakeVastCli<Deps>> {
  const server = await startFakeVastServer({ rateLimits: false, ...options.server });
  const home = mkdtempSync(join(tmpdir(), `cuzkit-${options.name}-cli-`));
  return {
    server,
    home,
    async run(args, deps = {} as Deps, env = {}) {
      const stdout = memorySink();
      const stderr = memorySink();
      const io: CliIO = {
        stdout,
        stderr,
        env: { VAST_API_KEY: server.apiKey, VAST_URL: server.url, HOME: home, ...env },
        cwd: home,
      };
      const command = options.command(io, deps);
      exitOverrideAll(command);
      const error = await parseCapturingError(command, args);
      const out = { stdout: stdout.text(), stderr: stderr.text(), error };
      const errorText = error instanceof Error ? `${error.message} ${JSON.stringify(error)}` : String(error);
      for (const text of [out.stdout, out.stderr, errorText]) {
        if (text.includes(server.apiKey) || /inst-key-\d+/.test(text)) {
          throw new Error(`a secret was printed by \`cuzkit ${options.name} ${args.join(" ")}\`:\n${text}`);
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

/**
 * Starts a fresh harness before each test of the calling file and closes it after. Returns a
 * stand-in that reads through to the current test's harness, so tests write `cli.run(...)`.
 */
export function useEachTest<H extends { close(): Promise<void> }>(start: () => Promise<H>): H {
  let current: H | undefined;
  beforeEach(async () => {
    current = await start();
  });
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });
  return new Proxy({} as H, {
    get(_target, key) {
      if (current === undefined) throw new Error("the harness is used outside a test");
      return Reflect.get(current, key);
    },
  });
}

/** Makes commander throw instead of exiting, on the command and every subcommand. */
export function exitOverrideAll(command: Command): void {
  command.exitOverride();
  for (const sub of command.commands) exitOverrideAll(sub);
}

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type FakeVastServer, startFakeVastServer } from "@cuzkit/vast/testing";
import type { Command } from "commander";
import { createFleetCommand, type FleetCommandDeps } from "../commands/fleet/index.js";
import type { CliIO } from "../io.js";
import { memorySink, parseCapturingError } from "./memory-io.js";

/** A fake Vast server, a temp HOME with a store path, and `cuzkit fleet ...` run in-process against them. */
export interface FleetCli {
  fake: FakeVastServer;
  home: string;
  /** The SQLite store's path in `home`. */
  db: string;
  /** Runs `cuzkit fleet ...args`: what it printed, and the error it ended with (undefined when none). */
  run(args: string[], deps?: FleetCommandDeps): Promise<{ stdout: string; stderr: string; error: unknown }>;
  close(): Promise<void>;
}

/** Makes commander throw instead of exiting, on the command and every subcommand. */
export function exitOverrideAll(command: Command): void {
  command.exitOverride();
  for (const sub of command.commands) exitOverrideAll(sub);
}

/** Starts the harness; `close()` it after each test. The fake's rate limits are off: these clients do not pace. */
export async function startFleetCli(prefix: string): Promise<FleetCli> {
  const fake = await startFakeVastServer({ rateLimits: false });
  const home = mkdtempSync(join(tmpdir(), prefix));
  return {
    fake,
    home,
    db: join(home, "fleet.db"),
    async run(args, deps = {}) {
      const stdout = memorySink();
      const stderr = memorySink();
      const io: CliIO = {
        stdout,
        stderr,
        env: { VAST_API_KEY: fake.apiKey, VAST_URL: fake.url, HOME: home },
        cwd: home,
      };
      const command = createFleetCommand(io, {
        clientOptions: { sleep: async () => {}, rateLimit: false },
        untilStopped: async () => {},
        ...deps,
      });
      exitOverrideAll(command);
      const error = await parseCapturingError(command, args);
      return { stdout: stdout.text(), stderr: stderr.text(), error };
    },
    async close() {
      await fake.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

import { homedir } from "node:os";
import { createInterface } from "node:readline/promises";
import { CuzkitError, createConsoleLogger } from "@cuzkit/core";
import type { VastClient, VastClientOptions } from "@cuzkit/vast";
import type { Command } from "commander";
import { interruptOnSignals } from "../../interrupt.js";
import { type CliIO, CommandExit } from "../../io.js";

/** What `createVastCommand` can be given besides the IO; all optional, for tests and embedding. */
export interface VastCommandDeps {
  /** Asks a yes/no question. Default: a prompt on stdin when it is a terminal; otherwise costly commands refuse without --yes. */
  confirm?: (question: string) => Promise<boolean>;
  /** Whether stdin is a terminal. Default `process.stdin.isTTY`. */
  stdinIsTTY?: boolean;
  /** Extra client options (fetch, clock, sleep, retry, rateLimit). The key is never taken from here by the CLI itself. */
  clientOptions?: Partial<VastClientOptions>;
  /** Interrupts a long wait (`rent --wait`). Default: SIGINT or SIGTERM of this process, while the wait lasts. */
  interrupt?: () => { signal: AbortSignal; dispose(): void };
}

// The Vast client loads only when a vast subcommand runs, not with the commands' definitions.
export const vastLib = () => import("@cuzkit/vast");

/** What every `cuzkit vast` subcommand shares: the client, output and confirmation. */
export interface VastContext {
  io: CliIO;
  /**
   * The client for this invocation, with `--url` and the logger: warnings (each retry and its
   * wait) always go to stderr, and `--verbose` adds every request, response and pacing wait.
   * Secrets are removed from every line by the client.
   */
  client(command: Command): Promise<VastClient>;
  /** Writes a line to stdout. */
  print(text: string): void;
  /** Writes JSON to stdout. */
  printJson(value: unknown): void;
  /** Asks before a costly step unless `yes`; without a terminal it refuses instead of hanging. */
  confirmOrRefuse(question: string, yes: boolean | undefined, what: string): Promise<void>;
  /** The API base URL this invocation talks to (for dry runs). */
  baseUrl(command: Command): string;
  /** A signal that fires when the user interrupts (Ctrl-C), and a disposer; for long waits. */
  interrupt(): { signal: AbortSignal; dispose(): void };
}

/** Global options of `cuzkit vast`. */
interface VastGlobals {
  url?: string;
  verbose?: boolean;
}

/** Builds the shared context of the vast subcommands. */
export function createVastContext(io: CliIO, deps: VastCommandDeps): VastContext {
  const print = (text: string) => io.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
  return {
    io,
    async client(command) {
      const { createVastClient } = await vastLib();
      const globals = command.optsWithGlobals<VastGlobals>();
      const logger = createConsoleLogger(globals.verbose ? "debug" : "warn", (line) =>
        io.stderr.write(`${line}\n`),
      );
      return createVastClient({
        env: io.env,
        homeDir: io.env.HOME ?? homedir(),
        baseUrl: globals.url,
        logger,
        ...deps.clientOptions,
      });
    },
    print,
    printJson: (value) => print(JSON.stringify(value, null, 2)),
    async confirmOrRefuse(question, yes, what) {
      if (yes) return;
      let ok: boolean;
      if (deps.confirm) ok = await deps.confirm(question);
      else if (!(deps.stdinIsTTY ?? process.stdin.isTTY === true)) {
        throw new CuzkitError(`refusing to ${what} without confirmation: stdin is not a terminal`, {
          code: "CONFIRMATION_REQUIRED",
          hint: "pass --yes to confirm non-interactively",
        });
      } else ok = await promptYesNo(question, io);
      if (!ok) {
        io.stderr.write("cancelled\n");
        throw new CommandExit(1);
      }
    },
    // SIGINT or SIGTERM while installed, so a wait can clean up instead of dying mid-way.
    interrupt: deps.interrupt ?? (() => interruptOnSignals(["SIGINT", "SIGTERM"])),
    baseUrl(command) {
      const url = command.optsWithGlobals<VastGlobals>().url ?? io.env.VAST_URL ?? "https://console.vast.ai";
      return url.replace(/\/+$/, "");
    },
  };
}

async function promptYesNo(question: string, io: CliIO): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: io.stderr });
  try {
    const answer = await rl.question(question);
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    rl.close();
  }
}

import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { inject } from "vitest";

declare module "vitest" {
  export interface ProvidedContext {
    /** The bundled `cuzkit` command (cli-bundle-setup.ts), a file `node` runs. */
    cuzkitBundle: string;
  }
}

/** The repository root. */
export const repoRoot = join(import.meta.dirname, "..", "..");

/**
 * The bundle of the `cuzkit` command that the vitest globalSetup built for this run
 * (cli-bundle-setup.ts), or undefined where there is none: outside a vitest worker (a script,
 * a bench) or under a config without that setup.
 */
export function cuzkitBundle(): string | undefined {
  try {
    return inject("cuzkitBundle") as string | undefined;
  } catch {
    return undefined; // not in a vitest worker: inject has no state to read
  }
}

/**
 * argv that runs the `cuzkit` command without a build: `node <bundle>` inside a vitest run
 * (cuzkitBundle()), else from source, `node --import tsx packages/cli/src/bin.ts`. Every test
 * that starts the command gets it here, so this is the one place that chooses.
 */
export function cuzkitArgv(): [string, string[]] {
  const bundle = cuzkitBundle();
  if (bundle !== undefined) return [process.execPath, [bundle]];
  return [process.execPath, ["--import", "tsx", join(repoRoot, "packages/cli/src/bin.ts")]];
}

/** A shell command line that runs `cuzkit` (as cuzkitArgv() does), for --spawn and scripts. */
export function cuzkitShellCommand(): string {
  const [node, args] = cuzkitArgv();
  return [node, ...args].map((part) => JSON.stringify(part)).join(" ");
}

/** A `cuzkit sim` child process. */
export interface SimProcess {
  address: string;
  child: ChildProcess;
  /** SIGTERM and wait for the exit code. */
  stop(): Promise<number | null>;
}

/** Starts `cuzkit sim <args>` as a child process and resolves once it prints its address. */
export async function startSimProcess(args: string[]): Promise<SimProcess> {
  const [node, base] = cuzkitArgv();
  const child = spawn(node, [...base, "sim", ...args], { stdio: ["ignore", "pipe", "pipe"] });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const address = await new Promise<string>((resolve, reject) => {
    lines.on("line", (line) => {
      const match = /^listening (\S+)/.exec(line);
      if (match?.[1]) resolve(match[1]);
    });
    child.once("exit", (code) => reject(new Error(`cuzkit sim exited with ${code} before listening`)));
  });
  return {
    address,
    child,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill("SIGTERM");
      const [code] = (await once(child, "exit")) as [number | null];
      return code;
    },
  };
}

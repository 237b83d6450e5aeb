import { spawn } from "node:child_process";

/** The outcome of a shell command. */
export interface CommandOutcome {
  /** Exit code, or null when killed by a signal. */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** The last lines it printed (stdout and stderr). */
  tail: string[];
}

/** Runs `command` with `sh -c`, keeping the last 20 lines of output; the signal kills it. */
export function runShellCommand(
  command: string,
  options: { signal?: AbortSignal | undefined; env?: NodeJS.ProcessEnv | undefined } = {},
): Promise<CommandOutcome> {
  return new Promise((resolve, reject) => {
    const child = spawn("sh", ["-c", command], {
      stdio: ["ignore", "pipe", "pipe"],
      env: options.env ?? process.env,
      signal: options.signal,
    });
    const tail: string[] = [];
    const keep = (chunk: Buffer) => {
      for (const line of chunk.toString("utf8").split("\n")) {
        if (line.trim() === "") continue;
        tail.push(line);
        if (tail.length > 20) tail.shift();
      }
    };
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    child.on("error", (error) => {
      if ((error as NodeJS.ErrnoException).code === "ABORT_ERR")
        resolve({ exitCode: null, signal: "SIGTERM", tail });
      else reject(error);
    });
    child.on("close", (exitCode, signal) => resolve({ exitCode, signal, tail }));
  });
}

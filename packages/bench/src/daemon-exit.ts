/** How a supervised daemon process ended. */
export interface DaemonExit {
  /** Milliseconds since the supervisor was created. */
  atMs: number;
  /** Exit code, or null when a signal ended it. */
  exitCode: number | null;
  /** Signal name that ended it, or null. */
  signal: NodeJS.Signals | null;
  /** True when the supervisor asked it to stop. */
  expected: boolean;
  /** True for exit code 137 or a SIGKILL that we did not send: the signature of the kernel's OOM killer. */
  likelyOom: boolean;
  /** True when the supervisor killed it because it had frozen (see kill()). */
  frozen: boolean;
  /** One sentence for people. */
  explanation: string;
  /** The last lines the daemon printed. */
  logTail: string[];
}

/** Reads an exit for people: OOM for 137/SIGKILL, "not found" for 127, the log's own word for a crash. */
export function explainExit(
  exitCode: number | null,
  signal: NodeJS.Signals | null,
  logTail: readonly string[],
): { likelyOom: boolean; text: string } {
  const likelyOom = exitCode === 137 || signal === "SIGKILL";
  const last = logTail.at(-1);
  const said = last === undefined ? "" : `; its last line: "${last}"`;
  if (likelyOom) {
    return {
      likelyOom,
      text: `killed (${signal ?? `exit ${exitCode}`}): most likely the kernel's OOM killer; check dmesg and lower partition workers / concurrency (cuzkit tune)${said}`,
    };
  }
  if (signal) return { likelyOom, text: `ended by ${signal}${said}` };
  if (exitCode === 127)
    return { likelyOom, text: `exited with code 127: the command was not found (check --spawn)${said}` };
  if (exitCode === 126)
    return { likelyOom, text: `exited with code 126: the command is not executable (check --spawn)${said}` };
  const crashed = logTail.some((line) => /panic|crash|segfault|SIGSEGV|abort/i.test(line));
  return {
    likelyOom,
    text: `exited with code ${exitCode}${exitCode === 0 ? " (unexpectedly)" : ""}${crashed ? ": it crashed" : ""}${said}`,
  };
}

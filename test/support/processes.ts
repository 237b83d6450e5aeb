import { execFileSync } from "node:child_process";

/**
 * `ps` lines (`pid args`) of the processes whose command line mentions `text`: a daemon left
 * behind by a test names the test's folder or socket. The `ps` itself is left out.
 */
export function processesMentioning(text: string): string[] {
  return execFileSync("ps", ["-eo", "pid=,args="], { encoding: "utf8" })
    .split("\n")
    .filter((line) => line.includes(text) && !line.includes("ps -eo"));
}

/** SIGKILLs the processes of `ps` lines from processesMentioning (ones already gone are skipped). */
export function killProcesses(lines: string[]): void {
  for (const line of lines) {
    try {
      process.kill(Number(line.trim().split(/\s+/)[0]), "SIGKILL");
    } catch {
      // It ended in between.
    }
  }
}

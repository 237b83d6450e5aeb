// Whether to colour output: only on a terminal, never with NO_COLOR, and as FORCE_COLOR says.
// The order follows Node's own rule (FORCE_COLOR wins over NO_COLOR, https://nodejs.org/api/cli.html#force_color1-2-3):
// FORCE_COLOR=0/false turns colour off, any other value turns it on; then a non-empty NO_COLOR
// (https://no-color.org) turns it off; otherwise colour follows whether the stream is a terminal.
import type { Writable } from "node:stream";

/** True when text written to `stream` may carry ANSI colour and style codes. */
export function colourEnabled(
  stream: Writable & { isTTY?: boolean },
  env: Record<string, string | undefined>,
): boolean {
  const force = env.FORCE_COLOR;
  if (force !== undefined) return force !== "0" && force.toLowerCase() !== "false";
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  return stream.isTTY === true;
}

/** Bold text when `enabled`, else the text unchanged. Headers are bold, never red: red reads as an error. */
export function bold(text: string, enabled: boolean): string {
  return enabled ? `\u001b[1m${text}\u001b[22m` : text;
}

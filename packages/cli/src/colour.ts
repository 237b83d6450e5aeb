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

/** The colours cuzkit paints with: a state word, never a whole table. */
export type Paint = "red" | "green" | "yellow";

const paintCodes: Record<Paint, number> = { red: 31, green: 32, yellow: 33 };

/** `text` in `paint` when `enabled`, else the text unchanged. */
export function painted(text: string, paint: Paint, enabled: boolean): string {
  return enabled ? `\u001b[${paintCodes[paint]}m${text}\u001b[39m` : text;
}

// C0 controls but newline and tab, DEL and C1 controls: what a terminal would act on.
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters it removes
const controlCharacters = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/**
 * Text from outside (the daemon's GPU names, job ids, error messages) made safe for a terminal:
 * control characters, escape sequences' ESC among them, become U+FFFD, so they show and do nothing.
 */
export function terminalSafe(text: string): string {
  return text.replace(controlCharacters, "\ufffd");
}

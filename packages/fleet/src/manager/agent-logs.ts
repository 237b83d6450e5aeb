import { redactSecrets, secretsFromEnv } from "../agent/redact.js";
import { logTailDefaults } from "../defaults.js";
import { FleetLogTailTooLargeError } from "../errors.js";
import type { LogsBody } from "../protocol/requests.js";
import type { ManagerContext } from "./context.js";

/** Bounds of one log shipment the manager accepts (default: logTailDefaults'). */
export interface LogShipmentBounds {
  /** Lines. Default logTailDefaults.maxShipLines (400). */
  maxLines?: number | undefined;
  /** Characters of one line. Default logTailDefaults.maxLineChars (2000). */
  maxLineChars?: number | undefined;
  /** Bytes (UTF-8) of the lines' text together. Default logTailDefaults.maxShipBytes (48 KiB). */
  maxBytes?: number | undefined;
}

/**
 * Checks a log shipment against the manager's bounds: a claim from a stranger's machine is
 * refused whole (FleetLogTailTooLargeError, nothing kept) when it has too many lines, a line too
 * long or too many bytes.
 */
export function checkLogShipment(id: string, body: LogsBody, bounds: LogShipmentBounds = {}): void {
  const maxLines = bounds.maxLines ?? logTailDefaults.maxShipLines;
  const maxLineChars = bounds.maxLineChars ?? logTailDefaults.maxLineChars;
  const maxBytes = bounds.maxBytes ?? logTailDefaults.maxShipBytes;
  if (body.lines.length > maxLines) {
    throw new FleetLogTailTooLargeError(
      `the log shipment has ${body.lines.length} lines, more than ${maxLines}`,
      {
        bound: "lines",
        instanceId: id,
      },
    );
  }
  let bytes = 0;
  for (const line of body.lines) {
    if (line.text.length > maxLineChars) {
      throw new FleetLogTailTooLargeError(
        `a line of the log shipment has ${line.text.length} characters, more than ${maxLineChars}`,
        { bound: "line", instanceId: id },
      );
    }
    bytes += Buffer.byteLength(line.text, "utf8");
  }
  if (bytes > maxBytes) {
    throw new FleetLogTailTooLargeError(
      `the log shipment has ${bytes} bytes of text, more than ${maxBytes}`,
      {
        bound: "bytes",
        instanceId: id,
      },
    );
  }
}

/**
 * Lines of the agent's log tail: checked against the bounds (checkLogShipment), redacted again
 * here (the manager's own secrets: `secrets`, and the secret-named variables it gives every
 * machine), and kept as the instance's newest lines. Answers how many lines were kept.
 */
export async function receiveLogs(
  ctx: ManagerContext,
  id: string,
  body: LogsBody,
  secrets: readonly string[],
): Promise<number> {
  checkLogShipment(id, body);
  await ctx.store.require(id);
  const known = [...secrets, ...secretsFromEnv(ctx.config.env ?? {})];
  const lines = body.lines.map((line) => ({
    stream: line.stream,
    at: line.at,
    text: redactSecrets(line.text, known),
  }));
  await ctx.store.appendLogLines(id, lines);
  return lines.length;
}

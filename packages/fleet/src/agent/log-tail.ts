import type { LogFields, Logger } from "@cuzkit/core";
import { logTailDefaults } from "../defaults.js";
import type { LogLine, LogStream, LogsBody, logShipReasons } from "../protocol/requests.js";

/** A line of the tail with its place in the agent's order (which shipment has sent it). */
export interface TailLine extends LogLine {
  /** 1, 2, ... across every stream, in the order the lines were completed. */
  n: number;
}

/** Options of createLogTail. */
export interface LogTailOptions {
  /** Lines kept per stream (the newest). Default logTailDefaults.maxLinesPerStream (200). */
  maxLinesPerStream?: number | undefined;
  /** Bytes (UTF-8) kept per stream (the newest lines). Default logTailDefaults.maxBytesPerStream (32 KiB). */
  maxBytesPerStream?: number | undefined;
  /** Characters of one line, the cut mark included; a longer one is cut and marked. Default logTailDefaults.maxLineChars (2000). */
  maxLineChars?: number | undefined;
  /** Applied to each complete line before it is kept (redactSecrets). Default: none. */
  redact?: ((text: string) => string) | undefined;
  /** Now, epoch ms, for each line's time. Default Date.now. */
  now?: (() => number) | undefined;
}

/** The last lines of the daemon's output and the agent's own, per stream, bounded in lines and bytes. */
export interface LogTail {
  /** Adds output as it arrives (chunks may split lines anywhere): complete lines are kept. */
  write(stream: LogStream, chunk: string | Buffer): void;
  /** Adds one whole line. */
  line(stream: LogStream, text: string): void;
  /** Completes every partial line (an exited daemon's last words). */
  flush(): void;
  /** The kept lines after `afterN` (default 0: all), oldest first across streams. */
  lines(afterN?: number): TailLine[];
}

/** What ends a line cut to maxLineChars (counted in them). */
const cutMarker = " [cut]";

const bytesOf = (text: string) => Buffer.byteLength(text, "utf8");

/** A ring buffer per stream: the newest lines, within maxLinesPerStream and maxBytesPerStream each. */
export function createLogTail(options: LogTailOptions = {}): LogTail {
  const maxLines = options.maxLinesPerStream ?? logTailDefaults.maxLinesPerStream;
  const maxBytes = options.maxBytesPerStream ?? logTailDefaults.maxBytesPerStream;
  const maxChars = options.maxLineChars ?? logTailDefaults.maxLineChars;
  const redact = options.redact ?? ((text: string) => text);
  const now = options.now ?? Date.now;
  const kept = new Map<LogStream, { lines: TailLine[]; bytes: number }>();
  const partial = new Map<LogStream, string>();
  let next = 1;

  const keep = (stream: LogStream, raw: string) => {
    const trimmed = raw.replace(/\r$/, "");
    if (trimmed.trim() === "") return;
    // Redacted whole, then cut: a cut first could leave a secret's piece too short to be found.
    const clean = redact(trimmed);
    const text =
      clean.length > maxChars
        ? `${clean.slice(0, Math.max(0, maxChars - cutMarker.length))}${cutMarker}`
        : clean;
    const buffer = kept.get(stream) ?? { lines: [], bytes: 0 };
    kept.set(stream, buffer);
    buffer.lines.push({ stream, at: now(), text, n: next++ });
    buffer.bytes += bytesOf(text);
    while (buffer.lines.length > maxLines || (buffer.bytes > maxBytes && buffer.lines.length > 1)) {
      const dropped = buffer.lines.shift() as TailLine;
      buffer.bytes -= bytesOf(dropped.text);
    }
  };

  return {
    write(stream, chunk) {
      const text = (partial.get(stream) ?? "") + (typeof chunk === "string" ? chunk : chunk.toString("utf8"));
      const parts = text.split("\n");
      let rest = parts.pop() ?? "";
      for (const part of parts) keep(stream, part);
      // A line with no end in sight is kept in pieces, so the partial buffer stays bounded too.
      while (rest.length > maxChars * 2) {
        keep(stream, rest.slice(0, maxChars));
        rest = rest.slice(maxChars);
      }
      partial.set(stream, rest);
    },
    line: keep,
    flush() {
      for (const [stream, rest] of partial) keep(stream, rest);
      partial.clear();
    },
    lines(afterN = 0) {
      return [...kept.values()]
        .flatMap((b) => b.lines)
        .filter((l) => l.n > afterN)
        .sort((a, b) => a.n - b.n);
    },
  };
}

/** A logger that also keeps each line (level, message and fields as JSON) in the tail's `agent` stream. */
export function tailingLogger(logger: Logger, tail: LogTail): Logger {
  const lineOf = (level: string, message: string, fields?: LogFields) =>
    `${level} ${message}${fields === undefined ? "" : ` ${JSON.stringify(fields)}`}`;
  return {
    debug: (message, fields) => logger.debug(message, fields),
    info(message, fields) {
      tail.line("agent", lineOf("info", message, fields));
      logger.info(message, fields);
    },
    warn(message, fields) {
      tail.line("agent", lineOf("warn", message, fields));
      logger.warn(message, fields);
    },
    error(message, fields) {
      tail.line("agent", lineOf("error", message, fields));
      logger.error(message, fields);
    },
  };
}

/** Why a shipment is made. */
export type ShipReason = (typeof logShipReasons)[number];

/** Options of createLogShipper. */
export interface LogShipperOptions {
  /** The tail whose unsent lines it ships. Required. */
  tail: LogTail;
  /** Sends one shipment (the reporter's logs). Required. */
  send: (body: LogsBody) => Promise<void>;
  /** The least time between two shipments, except on a failure, ms. Default logTailDefaults.shipEveryMs (30 s). */
  minIntervalMs?: number | undefined;
  /** Lines of one shipment (the newest unsent). Default logTailDefaults.maxShipLines (400). */
  maxLines?: number | undefined;
  /** Bytes of one shipment's lines as sent (UTF-8 JSON, so at least their text). Default logTailDefaults.maxShipBytes (48 KiB). */
  maxBytes?: number | undefined;
  /** Now, ms, for the rate bound. Default Date.now. */
  now?: (() => number) | undefined;
}

/** What a ship call did. */
export type ShipOutcome = "sent" | "nothing-new" | "too-soon";

/** Ships the tail's unsent lines. */
export interface LogShipper {
  /**
   * Sends the lines not sent yet (the newest, within maxLines and maxBytes). A failure always
   * ships; a phase change or a request only when minIntervalMs has passed since the last shipment
   * (the lines wait for the next one). Shipments never overlap. A failed send rejects, and its
   * lines stay unsent.
   */
  ship(reason: ShipReason, phase?: string): Promise<ShipOutcome>;
}

/** The log shipper of an agent: bounded in size (each shipment) and in rate (except on failure). */
export function createLogShipper(options: LogShipperOptions): LogShipper {
  const minInterval = options.minIntervalMs ?? logTailDefaults.shipEveryMs;
  const maxLines = options.maxLines ?? logTailDefaults.maxShipLines;
  const maxBytes = options.maxBytes ?? logTailDefaults.maxShipBytes;
  const now = options.now ?? Date.now;
  let sentThrough = 0;
  let lastShipAt: number | undefined;
  let queue: Promise<unknown> = Promise.resolve();

  const shipNow = async (reason: ShipReason, phase: string | undefined): Promise<ShipOutcome> => {
    if (reason === "failure") options.tail.flush();
    if (reason !== "failure" && lastShipAt !== undefined && now() - lastShipAt < minInterval)
      return "too-soon";
    const unsent = options.tail.lines(sentThrough);
    if (unsent.length === 0) return "nothing-new";
    // The newest lines that fit: what led up to now matters most.
    const chosen: TailLine[] = [];
    let bytes = 0;
    for (let i = unsent.length - 1; i >= 0 && chosen.length < maxLines; i--) {
      const line = unsent[i] as TailLine;
      // As sent: JSON-escaped, with its stream and time, so the body stays within the manager's limit.
      const size = bytesOf(JSON.stringify({ stream: line.stream, at: line.at, text: line.text }));
      if (bytes + size > maxBytes) break;
      bytes += size;
      chosen.unshift(line);
    }
    const body: LogsBody = {
      reason,
      phase,
      lines: chosen.map(({ stream, at, text }) => ({ stream, at, text })),
      dropped: unsent.length - chosen.length,
    };
    lastShipAt = now();
    await options.send(body);
    sentThrough = Math.max(sentThrough, unsent.at(-1)?.n ?? 0);
    return "sent";
  };

  return {
    ship(reason, phase) {
      const run = queue.then(() => shipNow(reason, phase));
      queue = run.catch(() => undefined);
      return run;
    },
  };
}

/** Structured fields attached to a log line. */
export type LogFields = Record<string, unknown>;

/** The logging interface every cuzkit package accepts. Bring pino, winston or console. */
export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

/** A logger that drops everything; the default wherever a logger is optional. */
export const silentLogger: Logger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
};

const levelOrder = { debug: 0, info: 1, warn: 2, error: 3 } as const;
/** Log levels, least to most severe. */
export type LogLevel = keyof typeof levelOrder;

/**
 * A logger writing one line per event to stderr: `level message key=value ...`; a field whose
 * value is undefined is left out. `minLevel` defaults to "info".
 */
export function createConsoleLogger(
  minLevel: LogLevel = "info",
  write: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Logger {
  const emit = (level: LogLevel) => (message: string, fields?: LogFields) => {
    if (levelOrder[level] < levelOrder[minLevel]) return;
    const extra = fields
      ? Object.entries(fields)
          .filter(([, value]) => value !== undefined)
          .map(([key, value]) => `${key}=${typeof value === "string" ? value : JSON.stringify(value)}`)
          .join(" ")
      : "";
    write(`${level} ${message}${extra ? ` ${extra}` : ""}`);
  };
  return { debug: emit("debug"), info: emit("info"), warn: emit("warn"), error: emit("error") };
}

/** Options every cuzkit error takes. */
export interface CuzkitErrorOptions {
  /** What an operator should do about it; shown by the CLI instead of a stack trace. */
  hint?: string | undefined;
  /** Whether repeating the same operation may succeed. Default: false. */
  retryable?: boolean | undefined;
  /** The underlying error, kept for debugging. */
  cause?: unknown | undefined;
}

/**
 * Base class of every error cuzkit throws. `code` is stable across versions and safe to
 * branch on; `message` says what went wrong; `hint` says what to do about it.
 */
export class CuzkitError extends Error {
  /** A stable, machine-readable identifier such as `DAEMON_RESTARTED`. */
  readonly code: string;
  /** Whether repeating the same operation may succeed. */
  readonly retryable: boolean;
  /** What an operator should do about it. */
  readonly hint: string;

  constructor(code: string, message: string, options: CuzkitErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.retryable = options.retryable ?? false;
    this.hint = options.hint ?? "";
  }

  /** True for any CuzkitError, also one thrown by a second copy of this package. */
  static is(value: unknown): value is CuzkitError {
    return (
      value instanceof CuzkitError ||
      (value instanceof Error &&
        typeof (value as { code?: unknown }).code === "string" &&
        typeof (value as { retryable?: unknown }).retryable === "boolean" &&
        typeof (value as { hint?: unknown }).hint === "string")
    );
  }
}

/** Bad input from a caller or a user: a flag, a size string, a config file, a request. */
export class InvalidInputError extends CuzkitError {
  constructor(message: string, hint: string, cause?: unknown) {
    super("INVALID_INPUT", message, { hint, retryable: false, cause });
  }
}

/** Wraps anything thrown into a CuzkitError, keeping the original as `cause`. */
export function toCuzkitError(value: unknown, code = "INTERNAL", hint = ""): CuzkitError {
  if (CuzkitError.is(value)) return value;
  const message = value instanceof Error ? value.message : String(value);
  return new CuzkitError(code, message, { hint, cause: value });
}

import type { LogFields, Logger } from "@cuzkit/core";

/** What replaces a secret in any text we produce. */
export const redactedMarker = "[redacted]";

/**
 * Builds a function that removes every secret from a text: the API key itself (also
 * URL-encoded), any `api_key=` query value, and any Bearer token. Used on server messages,
 * log lines and causes, because a server may echo what it received.
 */
export function createRedactor(getSecrets: () => readonly string[]): (text: string) => string {
  return (text) => {
    let out = text;
    for (const secret of getSecrets()) {
      if (secret.length < 4) continue;
      for (const form of new Set([secret, encodeURIComponent(secret)]))
        out = out.split(form).join(redactedMarker);
    }
    return out
      .replace(/(api_key=)[^&\s"']+/gi, `$1${redactedMarker}`)
      .replace(/(Bearer\s+)[^\s"',]+/gi, `$1${redactedMarker}`);
  };
}

/** Wraps a logger so that message and fields pass through `redact` before they are written. */
export function redactingLogger(logger: Logger, redact: (text: string) => string): Logger {
  const clean = (fields?: LogFields): LogFields | undefined => {
    if (fields === undefined) return undefined;
    const json = redact(JSON.stringify(fields));
    try {
      return JSON.parse(json) as LogFields;
    } catch {
      return { fields: json };
    }
  };
  return {
    debug: (message, fields) => logger.debug(redact(message), clean(fields)),
    info: (message, fields) => logger.info(redact(message), clean(fields)),
    warn: (message, fields) => logger.warn(redact(message), clean(fields)),
    error: (message, fields) => logger.error(redact(message), clean(fields)),
  };
}

/**
 * A copy of a thrown value that is safe to keep as an error's `cause`: same name, message and
 * stack with secrets removed, plus a system `code` (ECONNREFUSED) when there is one. The
 * original is dropped, since a library error may carry request headers.
 */
export function sanitizeCause(value: unknown, redact: (text: string) => string): Error {
  const source = value instanceof Error ? value : new Error(String(value));
  const copy = new Error(redact(source.message));
  copy.name = source.name;
  copy.stack = redact(source.stack ?? `${source.name}: ${source.message}`);
  const code = systemCode(source);
  if (code !== undefined) (copy as Error & { code?: string }).code = code;
  return copy;
}

/** The first system error code (ECONNRESET, UND_ERR_SOCKET) found along the cause chain. */
export function systemCode(value: unknown): string | undefined {
  let current: unknown = value;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    const code = (current as Error & { code?: unknown }).code;
    if (typeof code === "string") return code;
    current = (current as Error & { cause?: unknown }).cause;
  }
  return undefined;
}

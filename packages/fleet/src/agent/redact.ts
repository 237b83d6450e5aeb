// Secrets out of log lines, before they leave the rented machine (the agent) and again when
// they arrive (the manager: the lines are a stranger's claim). Two kinds of rule: the known
// secret values (the Vast API key, the fleet and agent tokens, the admin token), found whole or
// in pieces, and the shapes of secrets whatever their value (passwords in URLs, bearer tokens,
// `key=...` settings).

/** What replaces a secret in a redacted line. */
export const redactionMarker = "[REDACTED]";

/**
 * The shortest piece of a known secret that is still redacted on its own: a key the daemon's
 * output splits across two lines (or a chunk boundary) leaves two pieces, each at least this long
 * unless one end is shorter, and each is replaced. Shorter pieces are too common in ordinary text.
 */
export const minSecretPieceChars = 8;

/** The shortest known secret taken into account (shorter values would redact ordinary words). */
export const minSecretChars = 12;

/**
 * Environment variables whose values are secrets wherever they appear: the fleet's token, the
 * Vast keys (the operator's, and the per-instance key Vast puts into every container).
 */
export const secretEnvNames = [
  "CUZKIT_FLEET_TOKEN",
  "CUZKIT_FLEET_ADMIN_TOKEN",
  "VAST_API_KEY",
  "CONTAINER_API_KEY",
] as const;

/** A variable name that says its value is a secret (API_KEY, DB_PASSWORD, GITHUB_TOKEN, ...). */
const secretName = /(?:key|token|secret|passw(?:or)?d|pwd|credential|auth)/i;

/**
 * The secret values of an environment: the variables of secretEnvNames, and every variable whose
 * name says it holds a key, token, secret, password or credential. Values shorter than
 * minSecretChars are left out.
 */
export function secretsFromEnv(env: NodeJS.ProcessEnv): string[] {
  const found = new Set<string>();
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || value.length < minSecretChars) continue;
    if ((secretEnvNames as readonly string[]).includes(name) || secretName.test(name)) found.add(value);
  }
  return [...found];
}

// `scheme://user:password@host`: the password goes, the user stays (it says which account).
const urlPassword = /([a-z][a-z0-9+.-]*:\/\/[^\s/:@]*:)[^\s/@]+@/gi;
// `Authorization: Bearer abc`, `bearer abc` (any case).
const bearerToken = /\b(bearer\s+)[^\s"',;]+/gi;
// `api_key=abc`, `VAST_API_KEY: abc`, `"password": "abc"`, `--token=abc`, `?access_token=abc`.
const keyValue =
  /\b([a-z0-9_.-]*(?:key|secret|token|passw(?:or)?d|pwd|credentials?|auth)[a-z0-9_.-]*)(["']?\s*[=:]\s*["']?)(?!\[REDACTED\])[^\s"'&,;]+/gi;
// `--password abc`, `--token abc`, `--api-key abc` (a flag and its value).
const secretFlag = /(--(?:[a-z0-9-]*-)?(?:api-key|token|secret|password|passwd))(\s+)(?!\[REDACTED\]|-)\S+/gi;

/** Every position of `text` covered by a piece (at least minSecretPieceChars long) of a secret. */
function secretPieces(text: string, secrets: readonly string[]): boolean[] | undefined {
  let marked: boolean[] | undefined;
  for (const secret of secrets) {
    if (secret.length < minSecretChars) continue;
    // Every window of the secret: a match of one, extended, is a piece of the secret in the text.
    const windows = new Set<string>();
    for (let i = 0; i + minSecretPieceChars <= secret.length; i++)
      windows.add(secret.slice(i, i + minSecretPieceChars));
    for (let i = 0; i + minSecretPieceChars <= text.length; i++) {
      if (!windows.has(text.slice(i, i + minSecretPieceChars))) continue;
      marked ??= new Array<boolean>(text.length).fill(false);
      for (let j = i; j < i + minSecretPieceChars; j++) marked[j] = true;
    }
  }
  return marked;
}

/** Replaces each run of marked characters by the marker. */
function replaceMarked(text: string, marked: readonly boolean[]): string {
  let out = "";
  let inside = false;
  for (let i = 0; i < text.length; i++) {
    if (marked[i]) {
      if (!inside) out += redactionMarker;
      inside = true;
    } else {
      out += text[i];
      inside = false;
    }
  }
  return out;
}

/**
 * One line (or any text) with its secrets replaced by redactionMarker: every piece of a known
 * secret (whole, URL-encoded, or split, each piece of at least minSecretPieceChars characters),
 * then passwords in URLs, bearer tokens, `key=value` settings whose name says secret, and
 * `--token VALUE` flags. Idempotent: a redacted line is unchanged by a second pass.
 */
export function redactSecrets(text: string, secrets: readonly string[] = []): string {
  const forms = new Set<string>();
  for (const secret of secrets) {
    forms.add(secret);
    forms.add(encodeURIComponent(secret));
  }
  const marked = secretPieces(text, [...forms]);
  const out = marked === undefined ? text : replaceMarked(text, marked);
  return out
    .replace(urlPassword, `$1${redactionMarker}@`)
    .replace(bearerToken, `$1${redactionMarker}`)
    .replace(keyValue, `$1$2${redactionMarker}`)
    .replace(secretFlag, `$1$2${redactionMarker}`);
}

/** A redactor bound to a set of secrets (read at each call, so a later secret counts). */
export function createLineRedactor(secrets: () => readonly string[]): (text: string) => string {
  return (text) => redactSecrets(text, secrets());
}

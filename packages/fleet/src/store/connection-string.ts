import { FleetStoreError } from "../errors.js";

/** True when a `--db` value is a PostgreSQL connection string rather than a SQLite path. */
export function isPostgresUrl(location: string): boolean {
  return /^postgres(ql)?:\/\//i.test(location);
}

/**
 * Refuses a `--db` value that is neither a SQLite path nor a PostgreSQL URL (`mysql://x`, an empty
 * value) before anything is opened, so a typo never becomes a folder named `mysql:` with a store in it.
 */
export function checkStoreLocation(location: string, flag = "--db"): void {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(location)?.[1];
  if (location.trim() === "" || (scheme !== undefined && !isPostgresUrl(location))) {
    const what = location.trim() === "" ? "is empty" : `has the unknown scheme ${scheme}://`;
    throw new FleetStoreError(`${flag} ${what}: the fleet store is a SQLite file path or a postgres:// URL`, {
      hint: `pass ${flag} ./fleet.db (SQLite) or ${flag} postgres://USER@HOST:5432/DB (PostgreSQL)`,
    });
  }
}

/**
 * The connection string with its password replaced by `***`, for errors, logs and pages (a
 * password in `?password=` is hidden too). Text that does not parse is hidden after `//`.
 */
export function redactConnectionString(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== "") parsed.password = "***";
    if (parsed.searchParams.has("password")) parsed.searchParams.set("password", "***");
    return parsed.toString().replace("password=%2A%2A%2A", "password=***");
  } catch {
    return url.replace(/\/\/.*$/, "//***");
  }
}

/** Removes every occurrence of the URL's password from a message (a driver may echo it). */
export function redactMessage(message: string, url: string): string {
  let password: string | undefined;
  try {
    const parsed = new URL(url);
    password =
      parsed.password === ""
        ? (parsed.searchParams.get("password") ?? undefined)
        : decodeURIComponent(parsed.password);
  } catch {
    return message.split(url).join(redactConnectionString(url));
  }
  const withoutUrl = message.split(url).join(redactConnectionString(url));
  return password === undefined || password === "" ? withoutUrl : withoutUrl.split(password).join("***");
}

/** A schema name used in SQL text: lower-case letters, digits and `_`, not starting with a digit. */
export function checkSchemaName(schema: string, flag: string): string {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
    throw new FleetStoreError(`schema name ${JSON.stringify(schema)} is not a plain identifier`, {
      hint: `pass ${flag} with lower-case letters, digits and _ only (such as cuzkit_fleet)`,
    });
  }
  return schema;
}

import { parse as parseToml } from "smol-toml";

/** The daemon's default srs.param_cache (docs/daemon-facts.md section 3). */
export const daemonDefaultParamCache = "/data/zk/params";

/** srs.param_cache of a cuzk.toml (where the daemon keeps parameters and writes its PCE files), if set. */
export function paramCacheOf(toml: string): string | undefined {
  try {
    const srs = (parseToml(toml) as { srs?: { param_cache?: unknown } }).srs;
    return typeof srs?.param_cache === "string" && srs.param_cache !== "" ? srs.param_cache : undefined;
  } catch {
    // readCuzkConfig reports a TOML that does not parse; here it just has no param cache.
    return undefined;
  }
}

import { readFile } from "node:fs/promises";
import { join } from "node:path";

/** Where an API key was found. */
export type ApiKeySource = "option" | "env" | "xdg-file" | "config-file" | "legacy-file";

/** A resolved key, or the places searched when none was found. */
export type ApiKeyResolution =
  | { key: string; source: ApiKeySource }
  | { key?: undefined; searched: string[] };

/** Inputs of the key search; all injectable so tests never touch the real home directory. */
export interface ApiKeySearch {
  /** An explicit key; wins over everything. */
  apiKey?: string | undefined;
  /** Environment (VAST_API_KEY, XDG_CONFIG_HOME). */
  env: Record<string, string | undefined>;
  /** The home directory, for ~/.config and ~/.vast_api_key. */
  homeDir: string;
  /** Reads a file as UTF-8; default node:fs/promises readFile. */
  readTextFile?: ((path: string) => Promise<string>) | undefined;
}

/** The key files the official CLI uses, in the order we read them. */
export function apiKeyFiles(
  env: Record<string, string | undefined>,
  homeDir: string,
): [ApiKeySource, string][] {
  const files: [ApiKeySource, string][] = [];
  const xdg = env.XDG_CONFIG_HOME?.trim();
  const configFile = join(homeDir, ".config", "vastai", "vast_api_key");
  if (xdg) files.push(["xdg-file", join(xdg, "vastai", "vast_api_key")]);
  if (!xdg || join(xdg, "vastai", "vast_api_key") !== configFile) files.push(["config-file", configFile]);
  files.push(["legacy-file", join(homeDir, ".vast_api_key")]);
  return files;
}

/**
 * Finds the API key the way the official SDK does: the explicit option, then `VAST_API_KEY`,
 * then `$XDG_CONFIG_HOME/vastai/vast_api_key` (fallback `~/.config/vastai/vast_api_key`),
 * then the legacy `~/.vast_api_key`. Empty values are skipped. Never logs the key.
 */
export async function resolveApiKey(search: ApiKeySearch): Promise<ApiKeyResolution> {
  const option = search.apiKey?.trim();
  if (option) return { key: option, source: "option" };
  const fromEnv = search.env.VAST_API_KEY?.trim();
  if (fromEnv) return { key: fromEnv, source: "env" };
  const read = search.readTextFile ?? ((path: string) => readFile(path, "utf8"));
  const searched = ["apiKey option", "VAST_API_KEY"];
  for (const [source, path] of apiKeyFiles(search.env, search.homeDir)) {
    searched.push(path);
    let text: string;
    try {
      text = await read(path);
    } catch {
      continue; // absent or unreadable: try the next place
    }
    const key = text.split(/\r?\n/)[0]?.trim();
    if (key) return { key, source };
  }
  return { searched };
}

import { rename, writeFile } from "node:fs/promises";
import { join } from "node:path";

// The daemon's config file and command line: what each start hands the daemon.

/** Writes `configToml` atomically (a temporary file renamed) as `cuzk-LABEL.toml` in `workDir`; returns its path. */
export async function writeConfigFile(workDir: string, configToml: string, label: string): Promise<string> {
  const configPath = join(workDir, `cuzk-${label}.toml`);
  await writeFile(`${configPath}.tmp`, configToml);
  await rename(`${configPath}.tmp`, configPath);
  return configPath;
}

/**
 * The shell command that starts the daemon with `configPath` listening on `address`: `{config}` and
 * `{addr}` in `template` are replaced; when absent, ` --config {config}` and ` --listen {addr}` are appended.
 */
export function commandFor(template: string, address: string, configPath: string): string {
  let command = template;
  if (!command.includes("{config}")) command += " --config {config}";
  if (!command.includes("{addr}")) command += " --listen {addr}";
  return command
    .replaceAll("{config}", JSON.stringify(configPath))
    .replaceAll("{addr}", JSON.stringify(address));
}

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { resolveApiKey } from "./api-key.js";

describe("resolveApiKey", () => {
  let home: string;
  let xdg: string;

  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), "vast-home-"));
    xdg = mkdtempSync(join(tmpdir(), "vast-xdg-"));
  });
  afterEach(() => {
    rmSync(home, { recursive: true, force: true });
    rmSync(xdg, { recursive: true, force: true });
  });

  const writeKey = (path: string, text: string) => {
    mkdirSync(join(path, ".."), { recursive: true });
    writeFileSync(path, text);
  };
  const xdgFile = () => join(xdg, "vastai", "vast_api_key");
  const configFile = () => join(home, ".config", "vastai", "vast_api_key");
  const legacyFile = () => join(home, ".vast_api_key");

  it("prefers the option, then VAST_API_KEY, then the XDG file, then ~/.config, then the legacy file", async () => {
    writeKey(xdgFile(), "from-xdg-file\n");
    writeKey(configFile(), "from-config-file\n");
    writeKey(legacyFile(), "from-legacy-file\n");
    const env = { VAST_API_KEY: "from-env", XDG_CONFIG_HOME: xdg };
    expect(await resolveApiKey({ apiKey: "from-option", env, homeDir: home })).toEqual({
      key: "from-option",
      source: "option",
    });
    expect(await resolveApiKey({ env, homeDir: home })).toEqual({ key: "from-env", source: "env" });
    expect(await resolveApiKey({ env: { XDG_CONFIG_HOME: xdg }, homeDir: home })).toEqual({
      key: "from-xdg-file",
      source: "xdg-file",
    });
    rmSync(xdgFile());
    expect(await resolveApiKey({ env: { XDG_CONFIG_HOME: xdg }, homeDir: home })).toEqual({
      key: "from-config-file",
      source: "config-file",
    });
    rmSync(configFile());
    expect(await resolveApiKey({ env: { XDG_CONFIG_HOME: xdg }, homeDir: home })).toEqual({
      key: "from-legacy-file",
      source: "legacy-file",
    });
  });

  it("uses ~/.config/vastai when XDG_CONFIG_HOME is unset", async () => {
    writeKey(configFile(), "  spaced-key  \n");
    expect(await resolveApiKey({ env: {}, homeDir: home })).toEqual({
      key: "spaced-key",
      source: "config-file",
    });
  });

  it("skips empty values and files and lists where it looked", async () => {
    writeKey(legacyFile(), "\n");
    const result = await resolveApiKey({ apiKey: " ", env: { VAST_API_KEY: "" }, homeDir: home });
    expect(result.key).toBeUndefined();
    expect("searched" in result && result.searched).toEqual([
      "apiKey option",
      "VAST_API_KEY",
      configFile(),
      legacyFile(),
    ]);
  });
});

import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hardwareFrom } from "@cuzkit/core";
import { emitCuzkToml, recommend } from "@cuzkit/tuner";
import { describe, expect, it } from "vitest";
import { runCli } from "../packages/cli/src/run-cli.js";
import { memorySink } from "../packages/cli/src/test-support/memory-io.js";

const root = join(import.meta.dirname, "..");
const tracked = execFileSync("git", ["ls-files"], { cwd: root, encoding: "utf8" })
  .split("\n")
  .filter((path) => path !== "" && existsSync(join(root, path)));

describe("the repository is self-contained", () => {
  it("points nowhere outside itself (a clone has no shared/ folder)", () => {
    const outside = /shared\/(reference|seeds|spec)\b/;
    const offenders = tracked.filter(
      (path) => !path.endsWith(".test.ts") && outside.test(readFileSync(join(root, path), "utf8")),
    );
    expect(offenders).toEqual([]);
  });

  it("every docs/*.md a file names exists", () => {
    const named = new Set<string>();
    for (const path of tracked) {
      if (/\.(png|tgz|lock|yaml)$/.test(path)) continue;
      for (const match of readFileSync(join(root, path), "utf8").matchAll(/docs\/([\w-]+\.md)/g))
        named.add(match[1] ?? "");
    }
    expect([...named].filter((name) => !existsSync(join(root, "docs", name)))).toEqual([]);
    expect(named.size).toBeGreaterThanOrEqual(4);
  });

  it("the README's `tune --check` line works as written", async () => {
    const readme = readFileSync(join(root, "README.md"), "utf8");
    const line = /`(?:pnpm )?cuzkit (tune --check cuzk\.toml --ram [^`]+)`/.exec(readme)?.[1];
    expect(line).toBeDefined();
    const dir = mkdtempSync(join(tmpdir(), "cuzkit-readme-"));
    try {
      const machine = hardwareFrom({ ram: "256GiB", cores: 32, gpus: "2xRTX3090" });
      writeFileSync(join(dir, "cuzk.toml"), emitCuzkToml(recommend(machine)));
      const stdout = memorySink();
      const stderr = memorySink();
      const code = await runCli((line ?? "").split(" "), { stdout, stderr, env: {}, cwd: dir });
      expect(stderr.text()).toBe("");
      expect(code).toBe(0);
      expect(stdout.text()).toMatch(/^cuzkit tune --check: OK\n/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

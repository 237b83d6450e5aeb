import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CuzkitError, createManualClock } from "@cuzkit/core";
import { type FakeVastServer, startFakeVastServer } from "@cuzkit/vast";
import type { Command } from "commander";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type CliIO, CommandExit } from "../io.js";
import { memorySink, parseCapturingError } from "../testing/memory-io.js";
import { createVastCommand, type VastCommandDeps } from "./vast.js";

let server: FakeVastServer;
let home: string;

beforeEach(async () => {
  server = await startFakeVastServer();
  home = mkdtempSync(join(tmpdir(), "cuzkit-vast-cli-"));
});
afterEach(async () => {
  await server.close();
  rmSync(home, { recursive: true, force: true });
});

/** Runs `cuzkit vast ...args` in-process against the fake server. */
async function run(args: string[], deps: VastCommandDeps = {}, env: Record<string, string | undefined> = {}) {
  const stdout = memorySink();
  const stderr = memorySink();
  const io: CliIO = {
    stdout,
    stderr,
    env: { VAST_API_KEY: server.apiKey, VAST_URL: server.url, HOME: home, ...env },
    cwd: home,
  };
  const clock = createManualClock(0);
  const command = createVastCommand(io, {
    stdinIsTTY: false,
    ...deps,
    clientOptions: { sleep: clock.sleep, clock, rateLimit: false, ...deps.clientOptions },
  });
  exitOverrideAll(command);
  const error = await parseCapturingError(command, args);
  return { stdout: stdout.text(), stderr: stderr.text(), error };
}

function exitOverrideAll(command: Command): void {
  command.exitOverride();
  for (const sub of command.commands) exitOverrideAll(sub);
}

describe("cuzkit vast offers", () => {
  it("prints a table with GPU, count, RAM GiB, CPU threads, $/h and reliability", async () => {
    const { stdout, error } = await run([
      "offers",
      "--gpu",
      "RTX 4090",
      "--min-ram",
      "200GiB",
      "--max-price",
      "1.5",
    ]);
    expect(error).toBeUndefined();
    expect(stdout).toMatch(/GPU.*N.*VRAM GiB.*RAM GiB.*CPU thr.*\$\/h.*Reliab/);
    const row = stdout.split("\n").find((line) => line.includes("1001"));
    // 257000 MB = 239 GiB, 24564 MB = 23 GiB, 32 effective threads, $0.850/h, 99.5 %
    expect(row).toMatch(
      /1001\s*│\s*RTX 4090\s*│\s*2\s*│\s*23\s*│\s*239\s*│\s*32\s*│\s*0\.850\s*│\s*99\.5%\s*│\s*Poland, PL/,
    );
    expect(stdout).not.toContain("1004"); // too little RAM
    expect(stdout).not.toContain("1005"); // unverified
  });

  it("sends the flags as a typed query with numbers and MB", async () => {
    await run([
      "offers",
      "--gpu",
      "RTX 4090,A40",
      "--num-gpus",
      "2",
      "--min-ram",
      "256GiB",
      "--limit",
      "5",
      "--order",
      "dph_total",
    ]);
    const body = server.requestsTo("/api/v0/bundles/")[0]!.body;
    expect(body).toMatchObject({
      gpu_name: { in: ["RTX 4090", "A40"] },
      num_gpus: { eq: 2 },
      cpu_ram: { gte: 274878 },
      limit: 5,
      order: [["dph_total", "asc"]],
      type: "on-demand",
      allocated_storage: 10,
    });
  });

  it("prints JSON with --json, in bytes and $/h", async () => {
    const { stdout } = await run(["offers", "--json", "--order", "dph_total:asc"]);
    const offers = JSON.parse(stdout) as { id: number; cpuRamBytes: number; dphTotal: number }[];
    expect(offers.map((o) => o.id)).toEqual([1004, 1002, 1001, 1003]);
    expect(offers[0]).toMatchObject({ cpuRamBytes: 125_000_000_000, dphTotal: 0.4 });
  });

  it("says so when no key is configured, with a hint and without a flag to pass one", async () => {
    const { error } = await run(["offers"], {}, { VAST_API_KEY: undefined });
    expect(error).toMatchObject({ code: "VAST_NO_API_KEY" });
    expect((error as CuzkitError).hint).toMatch(/VAST_API_KEY/);
    const { error: flagError } = await run(["offers", "--api-key", "x"]);
    expect(flagError).toMatchObject({ code: "commander.unknownOption" });
  });

  it("reads the key from the Vast CLI's key file under HOME", async () => {
    const { mkdirSync, writeFileSync } = await import("node:fs");
    mkdirSync(join(home, ".config", "vastai"), { recursive: true });
    writeFileSync(join(home, ".config", "vastai", "vast_api_key"), `${server.apiKey}\n`);
    const { error } = await run(["offers", "--json"], {}, { VAST_API_KEY: undefined });
    expect(error).toBeUndefined();
  });
});

describe("cuzkit vast rent", () => {
  it("--dry-run prints the request body without the key or the registry login, and rents nothing", async () => {
    const { stdout, error } = await run(
      [
        "rent",
        "1001",
        "--image",
        "ghcr.io/org/prover:1",
        "--port",
        "9820",
        "--env",
        "CUZK_LOG=info",
        "--bid",
        "0.5",
        "--label",
        "bench-x",
        "--image-login-env",
        "REGISTRY_LOGIN",
        "--dry-run",
        "--args",
        "--config",
        "/etc/cuzk.toml",
      ],
      {},
      { REGISTRY_LOGIN: "-u me -p registry-token-123 ghcr.io" },
    );
    expect(error).toBeUndefined();
    const printed = JSON.parse(stdout) as { method: string; url: string; body: Record<string, unknown> };
    expect(printed).toMatchObject({
      method: "PUT",
      url: `${server.url}/api/v0/asks/1001/`,
      body: {
        image: "ghcr.io/org/prover:1",
        env: { CUZK_LOG: "info", "-p 9820:9820": "1" },
        price: 0.5,
        label: "bench-x",
        runtype: "args",
        args: ["--config", "/etc/cuzk.toml"],
        image_login: "[redacted]",
      },
    });
    expect(stdout).not.toContain(server.apiKey);
    expect(stdout).not.toContain("registry-token-123");
    expect(server.requests).toHaveLength(0);
  });

  it("refuses without --yes when stdin is not a terminal, instead of hanging", async () => {
    const { error } = await run(["rent", "1001", "--image", "img"]);
    expect(error).toBeInstanceOf(CuzkitError);
    expect(error).toMatchObject({ code: "CONFIRMATION_REQUIRED" });
    expect((error as CuzkitError).hint).toContain("--yes");
    expect(server.requests).toHaveLength(0);
  });

  it("asks through the injected prompt and stops when declined", async () => {
    const questions: string[] = [];
    const { error, stderr } = await run(["rent", "1001", "--image", "img", "--label", "bench-q"], {
      confirm: async (q) => {
        questions.push(q);
        return false;
      },
    });
    expect(error).toBeInstanceOf(CommandExit);
    expect(questions[0]).toMatch(/Rent offer 1001 \(on-demand\).*label bench-q/);
    expect(stderr).toContain("cancelled");
    expect(server.instances.size).toBe(0);
  });

  it("rents with --yes and waits until running with --wait", async () => {
    const { stdout, error } = await run(["rent", "1001", "--image", "img", "--yes", "--wait", "--json"]);
    expect(error).toBeUndefined();
    const result = JSON.parse(stdout) as {
      instanceId: number;
      label: string;
      instance: { actualStatus: string };
    };
    expect(result.label).toMatch(/^cuzkit-/);
    expect(result.instance.actualStatus).toBe("running");
    expect(server.instances.get(result.instanceId)?.label).toBe(result.label);
    expect(stdout).not.toContain("inst-key"); // the per-instance key is not printed
  });

  it("reports a gone offer as a typed error", async () => {
    const { error } = await run(["rent", "4242", "--image", "img", "--yes"]);
    expect(error).toMatchObject({ code: "VAST_OFFER_GONE" });
  });
});

describe("cuzkit vast instances, show, logs, label, destroy", () => {
  it("lists instances as a table and as JSON, filtered by label", async () => {
    server.addInstance({ label: "keep" });
    server.addInstance({ label: "other" });
    const { stdout } = await run(["instances", "--label", "keep"]);
    expect(stdout).toMatch(/keep\s*│\s*running\s*│\s*RTX 4090/);
    expect(stdout).not.toContain("other");
    expect(stdout).toContain("root@203.0.113.7 -p 40022");
    const { stdout: json } = await run(["instances", "--json"]);
    expect((JSON.parse(json) as unknown[]).length).toBe(2);
  });

  it("shows one instance, and a typed error when it is gone", async () => {
    const id = server.addInstance({ label: "one", status_msg: "success, running" });
    const { stdout } = await run(["show", String(id)]);
    expect(stdout).toContain("success, running");
    const { error } = await run(["show", "999"]);
    expect(error).toMatchObject({ code: "VAST_NOT_FOUND" });
  });

  it("prints logs", async () => {
    const id = server.addInstance();
    const { stdout, error } = await run(["logs", String(id), "--tail", "50"]);
    expect(error).toBeUndefined();
    expect(stdout).toContain("ready on 0.0.0.0:9820");
  });

  it("labels an instance", async () => {
    const id = server.addInstance();
    await run(["label", String(id), "bench-keep"]);
    expect(server.instances.get(id)?.label).toBe("bench-keep");
  });

  it("destroys only with confirmation", async () => {
    const id = server.addInstance();
    const refused = await run(["destroy", String(id)]);
    expect(refused.error).toMatchObject({ code: "CONFIRMATION_REQUIRED" });
    expect(server.instances.has(id)).toBe(true);
    const { stdout } = await run(["destroy", String(id), "999", "--yes"]);
    expect(stdout).toContain(`destroyed instance ${id}`);
    expect(stdout).toContain("instance 999 was already gone");
    expect(server.instances.has(id)).toBe(false);
  });

  it("rejects a non-numeric id before calling the API", async () => {
    const { error } = await run(["show", "abc"]);
    expect(error).toMatchObject({ code: "INVALID_INPUT" });
    expect(server.requests).toHaveLength(0);
  });

  it("takes the base URL from --url", async () => {
    const { error } = await run(["--url", server.url, "instances"], {}, { VAST_URL: "http://127.0.0.1:9" });
    expect(error).toBeUndefined();
  });
});

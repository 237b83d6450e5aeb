import { CuzkitError } from "@cuzkit/core";
import { describe, expect, it } from "vitest";
import { CommandExit } from "../../io.js";
import { useVastCli, type VastCliHarness, withVastCli } from "../../test-support/vast-cli.js";
import type { VastCommandDeps } from "./index.js";

const cli = useVastCli();

/** A `rent --wait` that does not end running: how the instance boots, and what must follow. */
interface FailedWait {
  name: string;
  /** The fake's status after the first poll (the first is none). */
  boot: "loading" | "exited";
  flags: string[];
  /** Whether the user presses Ctrl-C during the first wait between polls. */
  ctrlC?: boolean;
  code: string;
  stderr: RegExp;
  /** Instances left on the account afterwards (each one not left was destroyed, once). */
  left: 0 | 1;
}

/** Deps under which the user presses Ctrl-C during the first wait between polls. */
function ctrlCInFirstWait(harness: VastCliHarness): VastCommandDeps {
  const controller = new AbortController();
  return {
    interrupt: () => ({ signal: controller.signal, dispose() {} }),
    clientOptions: {
      sleep: async (ms, signal) => {
        controller.abort(new Error("interrupted"));
        await harness.clock.sleep(ms, signal);
      },
    },
  };
}

describe("cuzkit vast rent", () => {
  it("--dry-run prints the request body without the key or the registry login, and rents nothing", async () => {
    const { stdout, error } = await cli.run(
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
      url: `${cli.server.url}/api/v0/asks/1001/`,
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
    expect(stdout).not.toContain("registry-token-123");
    expect(cli.server.requests).toHaveLength(0);
  });

  it("refuses without --yes when stdin is not a terminal, instead of hanging", async () => {
    const { error } = await cli.run(["rent", "1001", "--image", "img"]);
    expect(error).toBeInstanceOf(CuzkitError);
    expect(error).toMatchObject({ code: "CONFIRMATION_REQUIRED" });
    expect((error as CuzkitError).hint).toContain("--yes");
    expect(cli.server.instances.size).toBe(0);
  });

  it("the prompt shows the GPUs, RAM, $/h and on-demand vs interruptible; declining rents nothing", async () => {
    const questions: string[] = [];
    const confirm = async (q: string) => {
      questions.push(q);
      return false;
    };
    const { error, stderr } = await cli.run(["rent", "1001", "--image", "img", "--label", "bench-q"], {
      confirm,
    });
    expect(error).toBeInstanceOf(CommandExit);
    expect(questions[0]).toContain(
      "Rent offer 1001: 2x RTX 4090 (24.0 GiB each), 251.0 GiB RAM, 32 CPU threads",
    );
    expect(questions[0]).toContain("$0.850/h on-demand (min bid $0.200/h), Poland, PL");
    expect(questions[0]).toMatch(/ON-DEMAND, image img, 10 GB disk, runtype ssh, label bench-q/);
    expect(stderr).toContain("cancelled");
    expect(stderr).toContain("runtype ssh (the default without --args) replaces the image's ENTRYPOINT");
    await cli.run(["rent", "1001", "--image", "img", "--bid", "0.3", "--args", "x"], { confirm });
    expect(questions[1]).toContain("INTERRUPTIBLE at a bid of $0.3/h");
    expect(questions[1]).toContain("runtype args");
    expect(cli.server.instances.size).toBe(0);
  });

  it("rents with --yes and waits until running with --wait", async () => {
    const { stdout, stderr, error } = await cli.run([
      "--verbose",
      "rent",
      "1001",
      "--image",
      "img",
      "--yes",
      "--wait",
      "--json",
    ]);
    expect(error).toBeUndefined();
    expect(stderr).toMatch(
      /debug vast waiting for an instance, polling again instanceId=\d+ status=provisioning target=running waitMs=10000/,
    );
    const result = JSON.parse(stdout) as {
      instanceId: number;
      label: string;
      instance: { actualStatus: string };
    };
    expect(result.label).toMatch(/^cuzkit-/);
    expect(result.instance.actualStatus).toBe("running");
    expect(cli.server.instances.get(result.instanceId)?.label).toBe(result.label);
  });

  const failedWaits: FailedWait[] = [
    {
      name: "--destroy-on-failure destroys an instance that does not run in time, so nothing bills",
      boot: "loading",
      flags: ["--wait-minutes", "1", "--destroy-on-failure"],
      code: "VAST_WAIT_TIMEOUT",
      stderr: /destroyed instance \d+; nothing is billing/,
      left: 0,
    },
    {
      name: "without --destroy-on-failure a timed-out wait says the instance is still billing",
      boot: "loading",
      flags: ["--wait-minutes", "1"],
      code: "VAST_WAIT_TIMEOUT",
      stderr: /instance (\d+) is still rented and billing: destroy it with `cuzkit vast destroy \1`/,
      left: 1,
    },
    {
      name: "destroys an instance that exits while starting, with --destroy-on-failure",
      boot: "exited",
      flags: ["--destroy-on-failure"],
      code: "VAST_INSTANCE_FAILED",
      stderr: /destroyed instance \d+; nothing is billing/,
      left: 0,
    },
    {
      name: "--destroy-on-failure destroys the instance when the wait is interrupted (Ctrl-C)",
      boot: "loading",
      flags: ["--destroy-on-failure"],
      ctrlC: true,
      code: "ABORTED",
      stderr: /destroyed instance \d+; nothing is billing/,
      left: 0,
    },
  ];
  // A loop rather than it.each: it.each's "$name" cuts a long name short.
  for (const { name, boot, flags, ctrlC, code, stderr, left } of failedWaits) {
    it(name, async () => {
      await withVastCli({ bootSequence: [null, boot] }, async (stuck) => {
        const { error, stderr: printed } = await stuck.run(
          ["rent", "1001", "--image", "img", "--yes", "--wait", ...flags],
          ctrlC ? ctrlCInFirstWait(stuck) : {},
        );
        expect(error).toMatchObject({ code });
        expect(printed).toMatch(stderr);
        expect(stuck.server.instances.size).toBe(left);
        // Destroyed exactly once when nothing is left, and not at all when it is kept.
        expect(stuck.server.requestsTo(/^\/api\/v0\/instances\/\d+\/$/, "DELETE")).toHaveLength(1 - left);
      });
    });
  }

  it("--destroy-on-failure without --wait is refused before anything is rented", async () => {
    const { error } = await cli.run(["rent", "1001", "--image", "img", "--yes", "--destroy-on-failure"]);
    expect(error).toMatchObject({ code: "INVALID_INPUT" });
    expect((error as CuzkitError).message).toContain("needs --wait");
    expect(cli.server.requests).toHaveLength(0);
  });

  it("a second rent of the same offer finds it rented and rents nothing", async () => {
    await cli.run(["rent", "1001", "--image", "img", "--yes"]);
    const { error } = await cli.run(["rent", "1001", "--image", "img", "--yes"]);
    expect(error).toMatchObject({ code: "VAST_OFFER_GONE" });
    expect(cli.server.instances.size).toBe(1);
    expect(cli.server.requestsTo("/api/v0/asks/1001/")).toHaveLength(1);
  });

  it("a script that rents twice in a row gets both: the server's 429 on the second create is waited out and retried", async () => {
    // The fake enforces create's 4.5 s on its own.
    await withVastCli({ rateLimits: {} }, async (limited) => {
      const first = await limited.run(["rent", "1001", "--image", "img", "--yes"]);
      const second = await limited.run(["rent", "1002", "--image", "img", "--yes"]);
      expect(first.error).toBeUndefined();
      expect(second.error).toBeUndefined();
      expect(second.stderr).toMatch(
        /warn vast call failed, retrying endpoint=PUT \/api\/v0\/asks\/1002\/ code=VAST_RATE_LIMITED status=429 attempt=1 of=5 delayMs=4500 thresholdMs=4500/,
      );
      expect(limited.server.instances.size).toBe(2);
      expect(limited.server.requestsTo("/api/v0/asks/1002/")).toHaveLength(2); // refused once, then rented once
    });
  });

  it("reports an unknown offer as a typed error before asking", async () => {
    const { error } = await cli.run(["rent", "4242", "--image", "img", "--yes"]);
    expect(error).toMatchObject({ code: "VAST_OFFER_GONE" });
    expect(cli.server.requestsTo("/api/v0/asks/4242/")).toHaveLength(0);
  });

  it("refuses an onstart over the API's 4048 characters before any call", async () => {
    const { error } = await cli.run([
      "rent",
      "1001",
      "--image",
      "img",
      "--yes",
      "--onstart",
      "x".repeat(4049),
    ]);
    expect(error).toMatchObject({ code: "INVALID_INPUT" });
    expect((error as CuzkitError).message).toContain("over 4048");
    expect(cli.server.requests).toHaveLength(0);
  });
});

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useVastCli, withVastCli } from "../../test-support/vast-cli.js";

// The harness fails any run whose stdout, stderr or error holds the API key or a per-instance
// key; these tests drive every command, with --verbose, through the paths where a key could leak.

const cli = useVastCli();

describe("the API key is never printed", () => {
  it("by any command with --verbose, which logs each request and response", async () => {
    const id = cli.server.addInstance({ label: "bench-v" });
    const doomed = cli.server.addInstance();
    writeFileSync(
      join(cli.home, "id.pub"),
      "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBw1hZx3bQmS9uY0 op@laptop\n",
    );
    const commands = [
      ["offers"],
      ["offers", "--query", "gpu_ram>=24"],
      ["rent", "1002", "--image", "img", "--yes", "--wait"],
      ["rent", "1003", "--image", "img", "--dry-run"],
      ["instances"],
      ["show", String(id)],
      ["logs", String(id)],
      ["label", String(id), "bench-w"],
      ["stop", String(id)],
      ["start", String(id)],
      ["reboot", String(id)],
      ["ssh-url", String(id)],
      ["ssh-key", "attach", String(id), "id.pub"],
      ["ssh-key", "list"],
      ["account", "--json"],
      ["destroy", String(doomed), "--yes"],
    ];
    for (const args of commands) {
      const { error, stderr } = await cli.run(["--verbose", ...args]);
      expect(error, args.join(" ")).toBeUndefined();
      if (!args.includes("--dry-run")) expect(stderr, args.join(" ")).toMatch(/debug vast request endpoint=/);
    }
  });

  it("when the server echoes the key in a 429 body: the retries are shown, redacted, and so is the final error", async () => {
    cli.server.failNext({
      path: "/api/v0/bundles/",
      times: 5,
      status: 429,
      body: "API requests too frequent endpoint threshold=1.0 for key {{key}}",
    });
    const { error, stderr } = await cli.run(["offers"]); // no --verbose: retries are warnings
    expect(error).toMatchObject({ code: "VAST_RATE_LIMITED" });
    const retries = stderr.split("\n").filter((l) => l.startsWith("warn vast call failed, retrying"));
    expect(retries).toHaveLength(4);
    expect(retries[0]).toMatch(
      /code=VAST_RATE_LIMITED status=429 attempt=1 of=5 delayMs=1000 thresholdMs=1000/,
    );
    expect((error as Error).message).toContain("[redacted]");
  });

  it("--verbose shows the client's pacing waits, which keep the server's own thresholds from answering 429", async () => {
    await withVastCli({ rateLimits: {} }, async (paced) => {
      const ids = [paced.server.addInstance(), paced.server.addInstance()];
      const { stderr, error } = await paced.run(["--verbose", "destroy", ...ids.map(String), "--yes"], {
        clientOptions: { rateLimit: {} },
      });
      expect(error).toBeUndefined();
      expect(stderr).toContain(
        "debug vast pacing: waiting before the next call endpoint=showInstance waitMs=2000",
      );
      expect(stderr).toContain(
        "debug vast pacing: waiting before the next call endpoint=destroyInstance waitMs=3000",
      );
      expect(stderr).not.toContain("VAST_RATE_LIMITED");
      expect(paced.server.instances.size).toBe(0);
      // A second process right after gets the server's 429, waits the threshold it names, and goes on.
      const again = paced.server.addInstance();
      await paced.run(["show", String(again)], { clientOptions: { rateLimit: {} } });
      const second = await paced.run(["show", String(again)], { clientOptions: { rateLimit: {} } });
      expect(second.error).toBeUndefined();
      expect(second.stderr).toMatch(
        /warn vast call failed, retrying .*code=VAST_RATE_LIMITED .*delayMs=2000 thresholdMs=2000/,
      );
    });
  });
});

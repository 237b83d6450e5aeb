import type { CuzkitError } from "@cuzkit/core";
import { describe, expect, it } from "vitest";
import { useVastCli, withVastCli } from "../../test-support/vast-cli.js";

const cli = useVastCli();

describe("cuzkit vast instances, show, logs, label", () => {
  it("lists instances as a table and as JSON, filtered by label", async () => {
    cli.server.addInstance({ label: "keep" });
    cli.server.addInstance({ label: "other" });
    const { stdout } = await cli.run(["instances", "--label", "keep"]);
    expect(stdout).toMatch(/keep\s*│\s*running\s*│\s*RTX 4090/);
    expect(stdout).not.toContain("other");
    expect(stdout).toContain("root@203.0.113.7 -p 40022");
    const { stdout: json } = await cli.run(["instances", "--json"]);
    expect((JSON.parse(json) as unknown[]).length).toBe(2);
  });

  it("shows one instance, and a typed error when it is gone", async () => {
    const id = cli.server.addInstance({ label: "one", status_msg: "success, running" });
    const { stdout } = await cli.run(["show", String(id)]);
    expect(stdout).toContain("success, running");
    expect(stdout).toContain("(on-demand)");
    const { error } = await cli.run(["show", "999"]);
    expect(error).toMatchObject({ code: "VAST_NOT_FOUND" });
  });

  it("prints logs", async () => {
    const id = cli.server.addInstance();
    const { stdout, error } = await cli.run(["logs", String(id), "--tail", "50"]);
    expect(error).toBeUndefined();
    expect(stdout).toContain("ready on 0.0.0.0:9820");
  });

  it("says a destroyed instance's logs are gone, not 'failed with 200'", async () => {
    const id = cli.server.addInstance();
    cli.server.instances.delete(id);
    const { error } = await cli.run(["logs", String(id)]);
    expect(error).toMatchObject({ code: "VAST_NOT_FOUND" });
    expect((error as CuzkitError).message).toBe(
      `no instance ${id} on this account: it was destroyed, or the id is mistyped`,
    );
    expect((error as CuzkitError).message).not.toContain("200");
    expect((error as CuzkitError).hint).toContain("cuzkit vast instances");
  });

  it("labels an instance", async () => {
    const id = cli.server.addInstance();
    await cli.run(["label", String(id), "bench-keep"]);
    expect(cli.server.instances.get(id)?.label).toBe("bench-keep");
  });

  it("rejects a non-numeric id before calling the API", async () => {
    const { error } = await cli.run(["show", "abc"]);
    expect(error).toMatchObject({ code: "INVALID_INPUT" });
    expect(cli.server.requests).toHaveLength(0);
  });

  it("takes the base URL from --url", async () => {
    const { error } = await cli.run(
      ["--url", cli.server.url, "instances"],
      {},
      { VAST_URL: "http://127.0.0.1:9" },
    );
    expect(error).toBeUndefined();
  });

  it("says on stderr that it retries a closed port, instead of going quiet", async () => {
    const url = await withVastCli({}, async (closed) => closed.server.url); // a port nothing listens on now
    const { error, stderr } = await cli.run(["--url", url, "instances"]);
    expect(error).toMatchObject({ code: "VAST_NETWORK" });
    const retries = stderr.split("\n").filter((l) => l.startsWith("warn vast call failed, retrying"));
    expect(retries).toHaveLength(4);
    expect(retries[0]).toMatch(/code=VAST_NETWORK attempt=1 of=5 delayMs=1000/);
  });

  it("refuses a plain-http URL to another host, since the key would travel in clear", async () => {
    const { error } = await cli.run(["--url", "http://vast.example.com", "instances"]);
    expect(error).toMatchObject({ code: "INVALID_INPUT" });
    expect((error as CuzkitError).message).toContain("in clear");
    expect(cli.server.requests).toHaveLength(0);
  });
});

describe("cuzkit vast destroy", () => {
  it("destroys only with confirmation, and the prompt names what it destroys", async () => {
    const id = cli.server.addInstance({ label: "bench-1" });
    const refused = await cli.run(["destroy", String(id)]);
    expect(refused.error).toMatchObject({ code: "CONFIRMATION_REQUIRED" });
    expect(cli.server.instances.has(id)).toBe(true);
    const questions: string[] = [];
    const { stdout } = await cli.run(["destroy", String(id)], {
      confirm: async (q) => {
        questions.push(q);
        return true;
      },
    });
    expect(questions[0]).toContain(`Destroy ${id} (label bench-1, 1x RTX 4090, running)?`);
    expect(stdout).toContain(`destroyed instance ${id}`);
    expect(cli.server.instances.has(id)).toBe(false);
  });

  it("a mistyped id is an error (exit non-zero), not 'already gone', and nothing is destroyed", async () => {
    const id = cli.server.addInstance();
    const { error, stdout } = await cli.run(["destroy", String(id), "999999", "--yes"]);
    expect(error).toMatchObject({ code: "VAST_NOT_FOUND" });
    expect((error as CuzkitError).message).toContain(
      "no instance 999999 on this account (destroyed, or a mistyped id)",
    );
    expect(stdout).toBe("");
    expect(cli.server.instances.has(id)).toBe(true); // checked before destroying any
    expect(cli.server.requestsTo(/^\/api\/v0\/instances\/\d+\/$/, "DELETE")).toHaveLength(0);
  });

  it("--missing-ok lets a cleanup script pass ids that are gone", async () => {
    const id = cli.server.addInstance();
    const { error, stdout } = await cli.run(["destroy", String(id), "999999", "--yes", "--missing-ok"]);
    expect(error).toBeUndefined();
    expect(stdout).toContain(`destroyed instance ${id}`);
    expect(stdout).toContain("instance 999999 is not on the account (nothing to destroy)");
  });
});

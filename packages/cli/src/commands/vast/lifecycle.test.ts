import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { CuzkitError } from "@cuzkit/core";
import { describe, expect, it } from "vitest";
import { useVastCli } from "../../test-support/vast-cli.js";

const cli = useVastCli();

const publicKey =
  "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBw1hZx3bQmS9uY0fJ2bSe2m3lJ1q0aVt0b3v1YbLhGQ op@laptop";

describe("cuzkit vast stop, start, reboot", () => {
  it("stops and starts an instance, saying that a stopped disk still bills", async () => {
    const id = cli.server.addInstance();
    const stopped = await cli.run(["stop", String(id)]);
    expect(stopped.error).toBeUndefined();
    expect(stopped.stdout).toContain(`stopped instance ${id} (its disk is still billed`);
    expect(cli.server.instances.get(id)?.actual_status).toBe("stopped");
    expect(cli.server.requestsTo(`/api/v0/instances/${id}/`, "PUT")[0]!.body).toEqual({ state: "stopped" });
    const started = await cli.run(["start", String(id)]);
    expect(started.stdout).toContain(`starting instance ${id}`);
    expect(cli.server.instances.get(id)?.actual_status).toBe("running");
  });

  it("reboots an instance once", async () => {
    const id = cli.server.addInstance();
    const { stdout, error } = await cli.run(["reboot", String(id)]);
    expect(error).toBeUndefined();
    expect(stdout).toContain(`rebooting instance ${id}`);
    expect(cli.server.requestsTo(`/api/v0/instances/reboot/${id}/`, "PUT")).toHaveLength(1);
  });

  it.each(["stop", "start", "reboot"])(
    "%s of an id not on the account is an error and changes nothing",
    async (verb) => {
      const { error } = await cli.run([verb, "999999"]);
      expect(error).toMatchObject({ code: "VAST_NOT_FOUND" });
      expect(cli.server.requests.filter((r) => r.method === "PUT")).toHaveLength(0);
    },
  );
});

describe("cuzkit vast ssh-url", () => {
  it("prints the direct URL when port 22 is mapped", async () => {
    const id = cli.server.addInstance();
    const { stdout } = await cli.run(["ssh-url", String(id)]);
    expect(stdout.trim()).toBe("ssh://root@203.0.113.7:40022");
  });

  it("falls back to the proxy, one port up for a jupyter runtype (as vast-cli)", async () => {
    const id = cli.server.addInstance({ ports: {}, ssh_host: "ssh5.vast.ai", ssh_port: 31000 });
    expect((await cli.run(["ssh-url", String(id)])).stdout.trim()).toBe("ssh://root@ssh5.vast.ai:31000");
    const jupyter = cli.server.addInstance({
      ports: {},
      ssh_host: "ssh6.vast.ai",
      ssh_port: 32000,
      image_runtype: "jupyter_proxy ssh_proxy",
    });
    const { stdout } = await cli.run(["ssh-url", String(jupyter), "--json"]);
    expect(JSON.parse(stdout)).toEqual({
      url: "ssh://root@ssh6.vast.ai:32001",
      command: "ssh -p 32001 root@ssh6.vast.ai",
      host: "ssh6.vast.ai",
      port: 32001,
      kind: "proxy",
    });
  });

  it("says why an args-mode instance has no SSH", async () => {
    const id = cli.server.addInstance({ ports: {}, ssh_host: null, ssh_port: null, image_runtype: "args" });
    const { error } = await cli.run(["ssh-url", String(id)]);
    expect(error).toMatchObject({ code: "INVALID_INPUT" });
    expect((error as CuzkitError).hint).toContain("args mode");
  });
});

describe("cuzkit vast ssh-key", () => {
  it("attaches a public key file to an instance", async () => {
    const id = cli.server.addInstance();
    writeFileSync(join(cli.home, "id.pub"), `${publicKey}\n`);
    const { stdout, error } = await cli.run(["ssh-key", "attach", String(id), "id.pub"]);
    expect(error).toBeUndefined();
    expect(stdout).toContain(`attached ssh-ed25519 key to instance ${id}`);
    expect(cli.server.requestsTo(`/api/v0/instances/${id}/ssh/`, "POST")[0]!.body).toEqual({
      ssh_key: publicKey,
    });
  });

  it("refuses a private key and never sends it", async () => {
    const id = cli.server.addInstance();
    writeFileSync(
      join(cli.home, "id"),
      "-----BEGIN OPENSSH PRIVATE KEY-----\nb3Blbn\n-----END OPENSSH PRIVATE KEY-----\n",
    );
    const { error } = await cli.run(["ssh-key", "attach", String(id), "id"]);
    expect(error).toMatchObject({ code: "INVALID_INPUT" });
    expect((error as CuzkitError).message).toContain("PRIVATE key");
    expect(cli.server.requests).toHaveLength(0);
  });

  it("lists the account's keys", async () => {
    await fetch(`${cli.server.url}/api/v0/ssh/`, {
      method: "POST",
      headers: { Authorization: `Bearer ${cli.server.apiKey}` },
      body: JSON.stringify({ ssh_key: publicKey }),
    });
    const { stdout } = await cli.run(["ssh-key", "list"]);
    expect(stdout).toMatch(/^1 {2}ssh-ed25519 AAAA/);
  });
});

describe("cuzkit vast account", () => {
  it("prints balance and credit, and never the api_key the API returns with them", async () => {
    const { stdout, error } = await cli.run(["account"]);
    expect(error).toBeUndefined();
    expect(stdout.trim()).toBe("account 42 (operator@example.com): balance $100.00, credit $5.00");
    const { stdout: json } = await cli.run(["account", "--json"]);
    expect(JSON.parse(json)).toEqual({
      id: 42,
      email: "operator@example.com",
      balanceUsd: 100,
      creditUsd: 5,
    });
  });
});

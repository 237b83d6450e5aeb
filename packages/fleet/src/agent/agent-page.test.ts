import { afterEach, describe, expect, it } from "vitest";
import { type AgentPage, startAgentPage } from "./agent-page.js";
import type { AgentReporter } from "./reporter.js";

let page: AgentPage | undefined;
afterEach(async () => {
  await page?.close();
  page = undefined;
});

const token = "local-page-token-0123456789";

/** A reporter that keeps nothing and keeps the machine. */
const quietReporter: AgentReporter = {
  kind: "disk",
  register: async () => ({
    instanceId: "standalone",
    minProofsPerHour: 10,
    benchmarkProofs: 2,
    heartbeatIntervalMs: 30_000,
    dialect: "budget",
  }),
  phase: async () => {},
  heartbeat: async () => "ok",
  failure: async () => {},
  report: async () => ({ state: "active", keep: true, reason: "standalone: MET" }),
  logs: async () => {},
};

describe("startAgentPage", () => {
  it("refuses a bind beyond loopback without a token, saying which flag to pass", async () => {
    const refused = await startAgentPage({ listen: "0.0.0.0:0" }).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: "INVALID_INPUT", hint: expect.stringContaining("--ui-token") });
    const short = await startAgentPage({ token: "short" }).catch((error: unknown) => error);
    expect(short).toMatchObject({ code: "INVALID_INPUT", message: expect.stringContaining("--ui-token") });
  });

  it("with a token, every read needs it; the page shell does not", async () => {
    page = await startAgentPage({ listen: "127.0.0.1:0", token });
    expect((await fetch(`${page.url}/instances/local`)).status).toBe(200);
    // The bundle's routes carry zod schemas: the page's server compiles them as the manager's does.
    const bundle = await fetch(`${page.url}/assets/dashboard.js`);
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get("content-type")).toContain("text/javascript");
    const refused = await fetch(`${page.url}/api/instances/local`);
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ error: "UI_TOKEN_REQUIRED" });
    const stream = await fetch(`${page.url}/api/stream`);
    expect(stream.status).toBe(401);
    const ok = await fetch(`${page.url}/api/instances/local`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(ok.status).toBe(200);
  });

  it("shows what the wrapped reporter reported and the live /status; a failed read is said, the last one kept", async () => {
    let reads = 0;
    page = await startAgentPage({
      listen: "127.0.0.1:0",
      label: "<b>box</b>",
      readDaemonStatus: async () => {
        reads += 1;
        if (reads > 1) throw new Error("cannot reach the daemon's status endpoint (ECONNREFUSED)");
        return { uptimeSecs: 9, memory: { usedBytes: 1, totalBytes: 4 }, raw: { secret: "x" } };
      },
    });
    const reporter = page.observe(quietReporter);
    await reporter.register({ agentVersion: "0.1.0" });
    await reporter.phase({ phase: "params" });
    await reporter.heartbeat({ phase: "params", daemonStatus: { uptimeSecs: 3 } });
    await reporter.report({
      verdict: "MET",
      proofsPerHour: 12,
      proofs: [{ index: 1, warmup: false, ok: true, wallMs: 5000, message: "not shown" }],
    });
    const read = async () => (await fetch(`${page?.url}/api/instances/local`)).json();
    const first = await read();
    expect(first.instance).toMatchObject({ label: "<b>box</b>", state: "serving", proofsPerHour: 12 });
    expect(first.phases.map((p: { state: string }) => p.state)).toEqual([
      "starting",
      "registered",
      "params",
      "serving",
    ]);
    expect(first.benchmark).toMatchObject({ verdict: "MET", minProofsPerHour: 10 });
    expect(first.benchmark.proofs).toEqual([{ index: 1, warmup: false, ok: true, wallMs: 5000, code: null }]);
    expect(first.daemonStatus.status).toEqual({ uptimeSecs: 9, memory: { usedBytes: 1, totalBytes: 4 } });
    const second = await read();
    expect(second.daemonStatusError).toContain("ECONNREFUSED");
    expect(second.daemonStatus.status.uptimeSecs).toBe(9);
    // The log lines the agent shipped through the reporter are the page's log tail.
    await reporter.logs?.({ reason: "phase", lines: [{ stream: "daemon", at: 5, text: "loading" }] });
    const logs = await (await fetch(`${page?.url}/api/instances/local/logs`)).json();
    expect(logs).toMatchObject({
      instanceId: "local",
      lines: [{ stream: "daemon", at: 5, text: "loading" }],
    });
  });
});

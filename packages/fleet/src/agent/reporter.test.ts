import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startTestFleet, type TestFleet } from "../test-support/test-fleet.js";
import { runAgent } from "./agent.js";
import {
  AgentRequestRefusedError,
  createDiskReporter,
  createHttpReporter,
  type HttpReporterOptions,
} from "./reporter.js";

let dir: string;
let fleet: TestFleet | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "cuzkit-agent-reports-"));
});
afterEach(async () => {
  rmSync(dir, { recursive: true, force: true });
  await fleet?.close();
  fleet = undefined;
});

describe("the standalone (disk) reporter", () => {
  it("writes a failed step to failure.json and the events log, and the agent ends without throwing", async () => {
    const reporter = createDiskReporter({ dir, minProofsPerHour: 40 });
    const outcome = await runAgent({
      reporter,
      paramsCommand: "exit 4",
      daemonCommand: "never-started",
      daemonAddress: `unix://${join(dir, "cuzk.sock")}`,
      request: { proofKind: 1 } as never,
      timers: { setInterval: () => 0, clearInterval: () => {} },
    });
    expect(outcome).toMatchObject({ status: "failed", failedStep: "params" });
    const failure = JSON.parse(readFileSync(join(dir, "failure.json"), "utf8"));
    expect(failure).toMatchObject({
      phase: "params",
      errorClass: "ParamsCommandError",
      message: expect.stringContaining("exited 4"),
    });
    const events = readFileSync(join(dir, "events.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { type: string; body: { reason?: string; lines?: { text: string }[] } });
    // The log tail too: at the phase, and the rest (the failed step's own line) on the failure.
    expect(events.map((e) => e.type)).toEqual(["register", "phase", "logs", "logs", "failure"]);
    const failureTail = events.find((e) => e.type === "logs" && e.body.reason === "failure");
    expect(failureTail?.body.lines?.map((l) => l.text).join("\n")).toContain("agent step failed");
  });

  it("keeps only a MET run at or above its threshold, and writes report.json", async () => {
    const reporter = createDiskReporter({ dir, minProofsPerHour: 40 });
    expect((await reporter.report({ verdict: "MET", proofsPerHour: 45, proofs: [] })).keep).toBe(true);
    expect((await reporter.report({ verdict: "MET", proofsPerHour: 35, proofs: [] })).keep).toBe(false);
    expect((await reporter.report({ verdict: "UNSTABLE", proofsPerHour: 90, proofs: [] })).keep).toBe(false);
    expect(JSON.parse(readFileSync(join(dir, "report.json"), "utf8"))).toMatchObject({ verdict: "UNSTABLE" });
  });
});

/** An HTTP reporter of a made-up instance at `url` whose waits between attempts end at once. */
const reporterAt = (url: string, options: Partial<HttpReporterOptions>) =>
  createHttpReporter({
    url,
    token: "t".repeat(43),
    instanceId: "i-00000001",
    sleep: async () => {},
    ...options,
  });

describe("the HTTP reporter against the manager", () => {
  it("registers and heartbeats with its token; a wrong token is refused with a hint naming the variables", async () => {
    fleet = await startTestFleet();
    const server = await fleet.app.listen({ host: "127.0.0.1", port: 0 });
    const record = await fleet.manager.deploy(1002);
    const good = createHttpReporter({ url: server, token: fleet.tokenOf(record.id), instanceId: record.id });
    expect((await good.register({ agentVersion: "test" })).minProofsPerHour).toBe(10);
    expect(await good.heartbeat({})).toBe("ok");
    const bad = createHttpReporter({
      url: server,
      token: "x".repeat(43),
      instanceId: record.id,
      attempts: 1,
    });
    const error = await bad.heartbeat({}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentRequestRefusedError);
    expect(error).toMatchObject({ status: 403, hint: expect.stringContaining("CUZKIT_FLEET_TOKEN") });
    // Once the manager gives the machine up, a heartbeat says stop.
    await fleet.manager.destroy(record.id);
    expect(await good.heartbeat({})).toBe("stop");
  });

  it("retries an unreachable manager, then says which variable to check", async () => {
    const reporter = reporterAt("http://127.0.0.1:9", { attempts: 3 });
    await expect(reporter.phase({ phase: "params" })).rejects.toMatchObject({
      code: "FLEET_MANAGER_UNREACHABLE",
      hint: expect.stringContaining("CUZKIT_FLEET_URL"),
    });
  });

  /** A manager that answers every request 503 and counts them. */
  async function failingManager(): Promise<{
    url: string;
    requests: () => number;
    close: () => Promise<void>;
  }> {
    let count = 0;
    const server: Server = createServer((request, response) => {
      request.resume();
      request.on("end", () => {
        count++;
        response.writeHead(503, { "content-type": "application/json" }).end("{}");
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    return {
      url: `http://127.0.0.1:${port}`,
      requests: () => count,
      close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    };
  }

  it("makes exactly `attempts` requests to a manager that answers 5xx", async () => {
    const manager = await failingManager();
    try {
      const reporter = reporterAt(manager.url, { attempts: 4 });
      await expect(reporter.phase({ phase: "params" })).rejects.toMatchObject({
        code: "FLEET_MANAGER_UNREACHABLE",
      });
      expect(manager.requests()).toBe(4);
    } finally {
      await manager.close();
    }
  });

  it("a stopping agent ends its wait, makes one last attempt and gives up, instead of retrying for minutes", async () => {
    const manager = await failingManager();
    const stop = new AbortController();
    let waiting: () => void = () => {};
    const inWait = new Promise<void>((resolve) => {
      waiting = resolve;
    });
    try {
      const reporter = reporterAt(manager.url, {
        attempts: 10,
        stopRetriesOn: stop.signal,
        // A wait that only a stop ends: without stopRetriesOn the request would hang here.
        sleep: (_ms, signal) =>
          new Promise<void>((_resolve, reject) => {
            signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
            waiting();
          }),
      });
      const done = reporter.phase({ phase: "params" }).catch((e: unknown) => e);
      await inWait; // the first attempt failed and the reporter waits to retry
      expect(manager.requests()).toBe(1);
      stop.abort();
      expect(await done).toMatchObject({ code: "FLEET_MANAGER_UNREACHABLE" });
      expect(manager.requests()).toBe(2);
      // Once stopped, a new request (the agent's last words) is tried once.
      expect(
        await reporter
          .failure({ phase: "params", errorClass: "X", message: "m" } as never)
          .catch((e: unknown) => e),
      ).toMatchObject({
        code: "FLEET_MANAGER_UNREACHABLE",
      });
      expect(manager.requests()).toBe(3);
    } finally {
      await manager.close();
    }
  });
});

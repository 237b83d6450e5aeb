import { request as httpRequest } from "node:http";
import { connect } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { startTestFleet, type TestFleet } from "../test-support/test-fleet.js";
import { isLoopbackHost } from "./admin-token.js";
import { type ListeningFleetServer, startFleetServer } from "./fleet-server.js";

let fleet: TestFleet | undefined;
let server: ListeningFleetServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  await fleet?.close();
  fleet = undefined;
});

const adminToken = "admin-token-for-the-limits-test";

/** A fleet server on 127.0.0.1:0 with small limits, so a stall is closed in well under a second. */
async function limitedServer(options: { maxEventStreams?: number; managerUrl?: string } = {}) {
  fleet = await startTestFleet({
    config: options.managerUrl === undefined ? {} : { managerUrl: options.managerUrl },
  });
  server = await startFleetServer({
    manager: fleet.manager,
    listen: "127.0.0.1:0",
    timeouts: {
      headersTimeoutMs: 200,
      requestTimeoutMs: 300,
      keepAliveTimeoutMs: 200,
      idleTimeoutMs: 2_000,
      timeoutCheckIntervalMs: 50,
    },
    dashboard: { adminToken, maxEventStreams: options.maxEventStreams, streamPollMs: 50 },
  });
  return { server, port: Number(new URL(server.url).port) };
}

/** Opens a raw connection, writes `text`, and resolves with what came back when the server closes it. */
function stall(port: number, text: string): Promise<{ answer: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port }, () => socket.write(text));
    let answer = "";
    socket.on("data", (chunk) => {
      answer += chunk.toString("utf8");
    });
    socket.on("error", reject);
    socket.on("close", () => resolve({ answer }));
  });
}

/** A GET with a Host header of our choosing (fetch does not let one set it). */
function getWithHost(
  port: number,
  path: string,
  host: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: "127.0.0.1", port, path, headers: { ...headers, host } }, (res) => {
      let body = "";
      res.on("data", (chunk) => {
        body += chunk.toString("utf8");
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("the manager's server limits", () => {
  it("closes a request whose headers stall, without a token, within the header timeout", async () => {
    const { port } = await limitedServer();
    // Headers begun and never finished: no blank line, no Authorization.
    const { answer } = await stall(port, "POST /v1/agent/i-00000000/report HTTP/1.1\r\nHost: x\r\n");
    // Node's own header limit is 60 s, past the test's 30 s: a 408 at all is the configured one.
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
  });

  it("closes a request whose body stalls, without a token, within the request timeout", async () => {
    const { port } = await limitedServer();
    const { answer } = await stall(
      port,
      'POST /v1/agent/i-00000000/report HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{"verdict":',
    );
    // Node's own request limit is 300 s, past the test's 30 s: a 408 at all is the configured one.
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
  });

  it("closes an idle keep-alive connection after the keep-alive timeout", async () => {
    const { port } = await limitedServer();
    const { answer } = await stall(port, `GET /api/summary HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
    // One answer, kept alive, then the server (not the client) closed the idle connection.
    expect(answer).toMatch(/^HTTP\/1\.1 200/);
    expect(answer.toLowerCase()).toContain("connection: keep-alive");
  });

  it("answers 503 EVENT_STREAMS_FULL beyond the cap on live streams, and serves again once one closes", async () => {
    const { server } = await limitedServer({ maxEventStreams: 1 });
    const first = new AbortController();
    const open = await fetch(`${server.url}/api/stream`, { signal: first.signal });
    expect(open.status).toBe(200);
    const reader = (open.body as ReadableStream<Uint8Array>).getReader();
    await reader.read(); // the hello: the stream is registered

    const refused = await fetch(`${server.url}/api/stream`);
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("30");
    expect(await refused.json()).toMatchObject({ ok: false, error: "EVENT_STREAMS_FULL" });

    // Closing the first frees its place: the server sees the close, then a new stream is served.
    first.abort();
    let status = 503;
    for (let attempt = 0; attempt < 200 && status === 503; attempt++) {
      const again = await fetch(`${server.url}/api/stream`);
      status = again.status;
      await again.body?.cancel();
    }
    expect(status).toBe(200);
  });

  it("serves loopback reads without the token only to a loopback Host or the manager URL's host", async () => {
    const { port } = await limitedServer({ managerUrl: "http://manager.example:7320" });
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, "manager.example:7320"]) {
      expect((await getWithHost(port, "/api/summary", host)).status, host).toBe(200);
    }
    // A DNS-rebinding page reaches the port under its own name, or with another port.
    for (const host of [`evil.example:${port}`, "evil.example", `127.0.0.1:${port + 1}`, "localhost"]) {
      const forged = await getWithHost(port, "/api/summary", host);
      expect(forged.status, host).toBe(421);
      expect(JSON.parse(forged.body)).toMatchObject({ ok: false, error: "HOST_NOT_ALLOWED" });
      expect((await getWithHost(port, "/metrics", host)).status, host).toBe(421);
    }
    // The admin token opens reads whatever the Host (it cannot be rebound into a page).
    const withToken = await getWithHost(port, "/api/summary", `evil.example:${port}`, {
      authorization: `Bearer ${adminToken}`,
    });
    expect(withToken.status).toBe(200);
    // Agents' endpoints carry their own token and are not Host-checked: the health check answers.
    expect((await getWithHost(port, "/v1/health", `evil.example:${port}`)).status).toBe(200);
  });

  it("serves the agents' endpoints without a dashboard, which then answers no read", async () => {
    fleet = await startTestFleet({});
    server = await startFleetServer({ manager: fleet.manager, listen: "127.0.0.1:0" });
    const port = Number(new URL(server.url).port);
    expect((await getWithHost(port, "/v1/health", `127.0.0.1:${port}`)).status).toBe(200);
    expect((await getWithHost(port, "/api/summary", `127.0.0.1:${port}`)).status).toBe(404);
  });

  it("needs the admin token for reads on a non-loopback listen address", () => {
    // startFleetServer sets readsNeedToken from this; the token rule itself is tested in dashboard-routes.test.ts.
    for (const host of ["0.0.0.0", "203.0.113.5", "::"]) expect(isLoopbackHost(host), host).toBe(false);
    for (const host of ["127.0.0.1", "::1", "localhost"]) expect(isLoopbackHost(host), host).toBe(true);
  });
});

import { createConfig, lintFromString } from "@redocly/openapi-core";
import Fastify from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { type DashboardFleet, startDashboardFleet, testAdminToken } from "../test-support/dashboard-fleet.js";
import { jsonAnswer, registeredRoutes, registerOpenApi } from "./openapi.js";

type Operation = {
  operationId?: string;
  security?: Record<string, string[]>[];
  requestBody?: unknown;
  parameters?: { name: string; in: string }[];
  responses: Record<string, { content?: Record<string, unknown> }>;
};
type Document = {
  openapi: string;
  servers?: { url: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, { required?: string[] }> };
};

let d: DashboardFleet | undefined;
afterEach(async () => {
  await d?.close();
  d = undefined;
});

const admin = { authorization: `Bearer ${testAdminToken}` };

async function served(fleet: DashboardFleet): Promise<Document> {
  const response = await fetch(`${fleet.url}/openapi.json`, { headers: admin });
  expect(response.status).toBe(200);
  return (await response.json()) as Document;
}

/** Every operation as [`METHOD /path`, operation]. */
function operations(document: Document): [string, string, Operation][] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]): [string, string, Operation] => [method.toUpperCase(), path, op]),
  );
}

// The open operations that take nothing that can fail (the page shells, the health check) can
// refuse nothing: they document no 4xx answer, and the rule asking for one is waived for them only.
const noRefusals = ["/", "/instances/{id}", "/v1/health"].map(
  (path) =>
    `Operation must have at least one \`4XX\` response. at #/paths/${path.replaceAll("/", "~1")}/get/responses`,
);

/** Redocly's strictest built-in ruleset, and the rules that make each operation complete. */
async function lint(document: Document) {
  const config = await createConfig({
    extends: ["recommended-strict"],
    rules: {
      "operation-operationId": "error",
      "operation-operationId-unique": "error",
      "operation-summary": "error",
      "operation-4xx-response": "error",
      "operation-2xx-response": "error",
      "security-defined": "error",
      "no-unused-components": "error",
      "no-empty-servers": "error",
      "no-server-example.com": "error",
      "path-parameters-defined": "error",
      "operation-parameters-unique": "error",
      "no-invalid-media-type-examples": "error",
    },
  });
  const problems = await lintFromString({ source: JSON.stringify(document), config });
  return problems
    .map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? "?"}`)
    .filter((p) => !noRefusals.some((pointer) => p === `operation-4xx-response: ${pointer}`));
}

describe("/openapi.json", () => {
  it("is linted clean by Redocly (recommended-strict), with servers, and security and an operationId on every operation", async () => {
    d = await startDashboardFleet();
    const document = await served(d);
    expect(document.openapi).toBe("3.1.0");
    expect(document.servers?.[0]?.url).toBe(d.url);
    expect(await lint(document)).toEqual([]);
    for (const [method, path, op] of operations(document)) {
      expect(op.operationId, `${method} ${path}`).toMatch(/^[a-z][A-Za-z]+$/);
      expect(op.security, `${method} ${path}`).toBeDefined();
    }
    const security = (method: string, path: string) => document.paths[path]?.[method]?.security;
    // Open: pages, bundle, health. Reads: the admin token or none (loopback). Actions: the admin token. Agents: theirs.
    expect(security("get", "/")).toEqual([]);
    expect(security("get", "/v1/health")).toEqual([]);
    expect(security("get", "/api/instances")).toEqual([{ adminToken: [] }, {}]);
    expect(security("post", "/api/deploy")).toEqual([{ adminToken: [] }]);
    expect(security("post", "/v1/agent/{id}/report")).toEqual([{ agentToken: [] }]);
  });

  it("says reads need the admin token when the manager listens beyond loopback, and stays lint-clean", async () => {
    d = await startDashboardFleet({ readsNeedToken: true });
    const document = await served(d);
    expect(await lint(document)).toEqual([]);
    const read = document.paths["/api/instances"]?.get;
    expect(read?.security).toEqual([{ adminToken: [] }]);
    expect(Object.keys(read?.responses ?? {})).toContain("401");
    expect(Object.keys(read?.responses ?? {})).not.toContain("421");
  });

  it("documents every route the server registers, and nothing else", async () => {
    d = await startDashboardFleet();
    const document = await served(d);
    const documented = operations(document).map(([method, path]) => `${method} ${path}`);
    const routes = registeredRoutes(d.fleet.app);
    expect(routes.length).toBeGreaterThan(20);
    expect([...documented].sort()).toEqual([...routes].sort());
  });

  it("answers each route's refusals with a status the route documents and the Error body", async () => {
    d = await startDashboardFleet({ readsNeedToken: true });
    const fleet = d;
    const document = await served(fleet);
    const agent = await fleet.deploy(1002);
    const seen: string[] = [];
    const send = async (
      method: string,
      path: string,
      op: Operation,
      init: { headers?: Record<string, string>; body?: string; query?: string },
    ) => {
      const url = `${fleet.url}${path.replace("{id}", agent.id).replace("{machineId}", "502")}${init.query ?? ""}`;
      const response = await fetch(url, { method, headers: init.headers ?? {}, body: init.body ?? null });
      const status = String(response.status);
      const label = `${method} ${path} ${JSON.stringify(init).slice(0, 80)} -> ${status}`;
      expect(Object.keys(op.responses), label).toContain(status);
      if (response.status >= 400) {
        const body = (await response.json()) as Record<string, unknown>;
        expect(body, label).toMatchObject({
          ok: false,
          error: expect.any(String),
          message: expect.any(String),
        });
        seen.push(`${status} ${body.error}`);
        return body;
      }
      await response.body?.cancel();
      return undefined;
    };
    for (const [method, path, op] of operations(document)) {
      if (path === "/api/stream") continue; // a 200 is a stream that stays open; its refusals are the reads'
      const token = op.security?.some((s) => "agentToken" in s) ? agent.token : testAdminToken;
      const json = { "content-type": "application/json", authorization: `Bearer ${token}` };
      // No token: 401 wherever the operation names a token.
      if ((op.security ?? []).length > 0) {
        const body = await send(method, path, op, {});
        expect(body?.error).toMatch(/UNAUTHENTICATED|ADMIN_TOKEN_REQUIRED/);
      }
      if (op.requestBody !== undefined) {
        // A body that does not match the schema: the documented 400, with where it went wrong.
        const invalid = await send(method, path, op, { headers: json, body: '{"unexpected":1}' });
        expect(invalid?.error).toBe("INVALID_BODY");
        // Malformed JSON, a body that is not JSON, a body over the route's limit.
        await send(method, path, op, { headers: json, body: "{" });
        await send(method, path, op, {
          headers: { ...json, "content-type": "application/xml" },
          body: "<a/>",
        });
        await send(method, path, op, { headers: json, body: JSON.stringify({ pad: "x".repeat(1_100_000) }) });
      }
      if (op.parameters?.some((p) => p.in === "query" && p.name === "limit")) {
        const invalid = await send(method, path, op, { headers: json, query: "?limit=0" });
        expect(invalid?.error).toBe("INVALID_QUERY");
      }
    }
    for (const status of [
      "400 INVALID_BODY",
      "400 INVALID_QUERY",
      "401 ADMIN_TOKEN_REQUIRED",
      "401 UNAUTHENTICATED",
    ])
      expect(seen).toContain(status);
    expect(seen.some((s) => s.startsWith("413"))).toBe(true);
    expect(seen.some((s) => s.startsWith("415"))).toBe(true);
  });

  it("answers an agent body that fails its schema with 400 INVALID_BODY and the issues, after the token check", async () => {
    d = await startDashboardFleet();
    const { id, token } = await d.deploy(1002);
    const post = (headers: Record<string, string>, body: unknown) =>
      fetch(`${(d as DashboardFleet).url}/v1/agent/${id}/phase`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify(body),
      });
    // Without the token the schema is not even consulted.
    expect((await post({}, { phase: "nonsense" })).status).toBe(401);
    const refused = await post({ authorization: `Bearer ${token}` }, { phase: "nonsense", extra: true });
    expect(refused.status).toBe(400);
    const body = (await refused.json()) as { error: string; issues: { path: string; message: string }[] };
    expect(body.error).toBe("INVALID_BODY");
    expect(body.issues.map((i) => i.path)).toEqual(expect.arrayContaining(["phase"]));
    // Nothing changed: the instance is still where the deploy left it.
    expect((await d.fleet.manager.store.require(id)).state).toBe("booting");
  });

  it("answers a lift whose machine id is not a number with the lift's 400", async () => {
    d = await startDashboardFleet();
    const response = await fetch(`${d.url}/api/machines/abc/lift`, {
      method: "POST",
      headers: { ...admin, "content-type": "application/json" },
      body: "{}",
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: "INVALID_BODY",
      message: expect.stringContaining("machine id"),
    });
  });
});

describe("answers checked against their schema", () => {
  it("fail with 500 when strict (as the tests run), and are sent as the route made them otherwise", async () => {
    for (const strictAnswers of [true, false]) {
      const app = Fastify();
      registerOpenApi(app, { strictAnswers });
      void app.register(async (scope) => {
        scope.withTypeProvider<ZodTypeProvider>().get(
          "/drifted",
          {
            schema: {
              operationId: "drifted",
              response: { 200: jsonAnswer(z.object({ count: z.number() })) },
            },
          },
          // A route whose answer drifted from its schema.
          async () => ({ count: "three" }) as unknown as { count: number },
        );
      });
      const response = await app.inject({ url: "/drifted" });
      if (strictAnswers) expect(response.statusCode).toBe(500);
      else expect(response.json()).toEqual({ count: "three" });
      await app.close();
    }
  });
});

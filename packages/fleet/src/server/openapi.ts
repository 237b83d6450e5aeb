import fastifySwagger from "@fastify/swagger";
import type {
  FastifyBaseLogger,
  FastifyInstance,
  FastifyRequest,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from "fastify";
import {
  createJsonSchemaTransform,
  jsonSchemaTransformObject,
  serializerCompiler,
  validatorCompiler,
  type ZodTypeProvider,
} from "fastify-type-provider-zod";
import type { OpenAPIV3_1 } from "openapi-types";
import type { z } from "zod";
import { errorBodySchema } from "./api-schemas.js";

// The manager's OpenAPI 3.1 document is generated, not written: every route declares its
// params, query, body and answers as zod schemas (api-schemas.ts, ../protocol/), Fastify
// validates requests and checks answers with them (fastify-type-provider-zod), and
// @fastify/swagger builds /openapi.json from the same route table. A route without an
// operationId fails a test, and so does a route missing from the document.

/** A Fastify instance whose routes declare zod schemas (typed params, query, body and answers). */
export type ZodApp = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  ZodTypeProvider
>;

/** The security schemes: the admin token (dashboard and admin API) and each instance's own token (agent API). */
export const securitySchemes = {
  adminToken: {
    type: "http",
    scheme: "bearer",
    description:
      "The admin token (printed by `cuzkit fleet serve`, kept in its state directory as admin-token). " +
      "Actions always need it; reads need it when the manager listens beyond loopback.",
  },
  agentToken: {
    type: "http",
    scheme: "bearer",
    description:
      "The instance's own token (CUZKIT_FLEET_TOKEN on the rented machine): it opens that instance's agent endpoints only.",
  },
} as const;

/** Who may call a route: the `security` of its operation. */
export const security = {
  /** No token: the page shells, the bundle and the health check carry no data. */
  open: [] as Record<string, string[]>[],
  /** The admin token, always. */
  admin: [{ adminToken: [] }] as Record<string, string[]>[],
  /** The admin token, or none on a loopback manager (an empty requirement: reads open there). */
  adminOrLoopback: [{ adminToken: [] }, {}] as Record<string, string[]>[],
  /** The instance's own token. */
  agent: [{ agentToken: [] }] as Record<string, string[]>[],
};

/** The statuses a route may refuse or fail with, each answered with the Error body. */
export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 413 | 415 | 421 | 429 | 500 | 502 | 503;

type JsonAnswer<S extends z.ZodType> = {
  description: string;
  content: { "application/json": { schema: S } };
};

/** A JSON answer with its description, in the form both Fastify and the document read. */
export function jsonAnswer<S extends z.ZodType>(schema: S, description = "OK"): JsonAnswer<S> {
  return { description, content: { "application/json": { schema } } };
}

/** A non-JSON answer (a page, the bundle, metrics, the event stream): its media type and description. */
export function textAnswer<S extends z.ZodType>(mediaType: string, schema: S, description: string) {
  return { description, content: { [mediaType]: { schema } } };
}

/**
 * The error answers of a route, each `{ ok: false, error, message }` with its description. The
 * descriptions say when each is served; 500 is added to every route.
 */
export function errorAnswers<E extends Partial<Record<ErrorStatus, string>>>(
  errors: E,
): Record<keyof E | 500, JsonAnswer<typeof errorBodySchema>> {
  const answers: Record<string, JsonAnswer<typeof errorBodySchema>> = {};
  for (const [status, description] of Object.entries({
    ...errors,
    500: "The manager failed to handle the request",
  })) {
    if (description !== undefined) answers[status] = jsonAnswer(errorBodySchema, description);
  }
  return answers as Record<keyof E | 500, JsonAnswer<typeof errorBodySchema>>;
}

/** What Fastify itself refuses before a route runs, for routes that take a body. */
export const bodyRefusals = {
  400: "Malformed JSON, or a body that does not match the schema (`issues` says where); nothing changed",
  413: "The body is larger than the route accepts (FST_ERR_CTP_BODY_TOO_LARGE)",
  415: "The body is not JSON (FST_ERR_CTP_INVALID_MEDIA_TYPE)",
} as const satisfies Partial<Record<ErrorStatus, string>>;

/** The 400 answer of a route whose params, query or body do not match its schema. */
export interface InvalidAnswer {
  /** The error code, such as INVALID_BODY. */
  error: string;
  /** The message: what a valid request looks like. */
  message: string;
}

declare module "fastify" {
  interface FastifyContextConfig {
    /** The 400 answer when the route's params, query or body do not match its schema. Default INVALID_INPUT. */
    invalid?: InvalidAnswer;
  }
}

/** The body of the 400 answer to a request that failed the route's schema: its code, message and first 10 issues. */
export function invalidAnswerBody(
  invalid: InvalidAnswer | undefined,
  validation: readonly { instancePath?: string; message?: string }[],
): z.infer<typeof errorBodySchema> {
  return {
    ok: false,
    error: invalid?.error ?? "INVALID_INPUT",
    message: invalid?.message ?? "the request does not match the endpoint's schema",
    issues: validation.slice(0, 10).map((issue) => ({
      path: (issue.instancePath ?? "").replace(/^\//, "").replaceAll("/", "."),
      message: issue.message ?? "invalid",
    })),
  };
}

/**
 * Makes `app` validate and serialize with zod, and collect its routes into the OpenAPI document.
 * An answer that does not match its schema fails (500) with `strictAnswers`, as the tests run;
 * without, it is sent as the route made it, so a drift in the document never breaks a client.
 * Call it first; routes added in plugins registered after it are collected (a route added at the
 * top level before the plugins load would be missed). A route with a body schema gets `{}` for a
 * missing body, as the agent API always did.
 */
export function registerOpenApi(
  app: FastifyInstance,
  options: { strictAnswers?: boolean | undefined } = {},
): void {
  // Every route, as `METHOD /path/{param}`: added at once (not when a plugin loads), so a route
  // declared too early for @fastify/swagger is listed here and missing there, which a test finds.
  const routes: string[] = [];
  registered.set(app, routes);
  app.addHook("onRoute", (route) => {
    for (const method of [route.method].flat()) {
      if (method !== "HEAD") routes.push(`${method} ${route.url.replace(/:(\w+)/g, "{$1}")}`);
    }
  });
  app.setValidatorCompiler(validatorCompiler);
  const strict = options.strictAnswers ?? false;
  app.setSerializerCompiler((route) => {
    const checked = serializerCompiler(route as Parameters<typeof serializerCompiler>[0]);
    return (data) => {
      try {
        return checked(data);
      } catch (error) {
        // An answer off its schema: a test fails on it; a serving manager sends it as the route made it.
        if (strict) throw error;
        return JSON.stringify(data);
      }
    };
  });
  void app.register(fastifySwagger, {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: "cuzkit fleet manager API",
        version: "1",
        license: { name: "MIT", identifier: "MIT" },
        description:
          "The fleet manager's HTTP API: the agent API (/v1/agent/..., each instance's own token), the dashboard's " +
          "JSON and the admin actions (the admin token), /metrics and this document. Generated from the schemas the " +
          'server validates with. Every refusal is `{ "ok": false, "error": CODE, "message": ... }` and changes nothing.',
      },
      components: { securitySchemes },
      tags: [
        { name: "agent", description: "What the agent on each rented machine reports" },
        { name: "dashboard", description: "The dashboard's pages, its JSON and the live stream" },
        { name: "admin", description: "Operator actions: always the admin token" },
        { name: "meta", description: "Health, metrics and this document" },
      ],
    },
    transform: createJsonSchemaTransform({ skipList: [] }),
    // The registered schemas (`.meta({ id })`) become components; those no operation uses are left out.
    transformObject: (document) => withoutUnusedSchemas(jsonSchemaTransformObject(document)),
  });
  app.addHook("preValidation", async (request) => {
    if (request.body === undefined && request.routeOptions.schema?.body !== undefined) request.body = {};
  });
}

/** Options of registerOpenApi. */
export interface OpenApiOptions {
  /** Whether an answer off its schema fails with 500 rather than being sent as made. Default false. */
  strictAnswers?: boolean | undefined;
}

const registered = new WeakMap<FastifyInstance, string[]>();

/** Every route `app` serves (HEAD left out), as `METHOD /path/{param}`; registerOpenApi keeps the list. */
export function registeredRoutes(app: FastifyInstance): readonly string[] {
  return registered.get(app) ?? [];
}

/** The document without the component schemas that nothing references (zod registers input and output forms of each). */
function withoutUnusedSchemas<D extends object>(document: D): D {
  const components = (document as { components?: { schemas?: Record<string, unknown> } }).components;
  const schemas = components?.schemas;
  if (schemas === undefined) return document;
  const used = new Set<string>();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) for (const item of value) visit(item);
    else if (value !== null && typeof value === "object") {
      for (const [key, child] of Object.entries(value)) {
        if (key === "$ref" && typeof child === "string" && child.startsWith("#/components/schemas/")) {
          const name = child.slice("#/components/schemas/".length);
          if (!used.has(name)) {
            used.add(name);
            visit(schemas[name]);
          }
        } else visit(child);
      }
    }
  };
  visit({ ...document, components: { ...components, schemas: {} } });
  const kept = Object.fromEntries(Object.entries(schemas).filter(([name]) => used.has(name)));
  return { ...document, components: { ...components, schemas: kept } };
}

/**
 * The document as served to `request`: the generated one with `servers` naming the URL the
 * request reached (from its Host header) and the manager URL agents use, when it differs.
 */
export function openApiDocumentFor(
  app: FastifyInstance,
  request: FastifyRequest,
  managerUrl: string | undefined,
): OpenAPIV3_1.Document {
  const document = app.swagger() as OpenAPIV3_1.Document;
  const servers: OpenAPIV3_1.ServerObject[] = [];
  const host = request.headers.host;
  if (host !== undefined && /^[A-Za-z0-9.:[\]-]{1,300}$/.test(host)) {
    servers.push({
      url: `${request.protocol}://${host}`,
      description: "This manager, as this request reached it",
    });
  }
  const manager = managerUrl?.replace(/\/+$/, "");
  if (manager !== undefined && manager !== "" && !servers.some((s) => s.url === manager)) {
    servers.push({ url: manager, description: "The manager URL agents report to" });
  }
  if (servers.length === 0)
    servers.push({ url: "http://127.0.0.1:7320", description: "The default listen address" });
  return { ...document, servers };
}

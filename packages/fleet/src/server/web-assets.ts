import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { assetQuery } from "./api-schemas.js";
import { errorAnswers, security, textAnswer, type ZodApp } from "./openapi.js";

// The browser bundle (web/dashboard.js and .css, built by scripts/build-web.mjs and committed) and
// the HTML shell of the pages. The bundle sits at the package root: two folders up from
// src/server/ when run from source, one up from dist/ when built.

const candidates = ["../../web/", "../web/"];

function readAsset(name: string): string {
  for (const folder of candidates) {
    try {
      return readFileSync(fileURLToPath(new URL(folder + name, import.meta.url)), "utf8");
    } catch {
      // try the next layout
    }
  }
  throw new Error(`the dashboard asset ${name} is missing: run pnpm --filter @cuzkit/fleet build:web`);
}

let cached: { js: string; css: string; version: string } | undefined;

/** The bundled script and stylesheet, read once, and their version (a hash of both). */
export function dashboardAssets(): { js: string; css: string; version: string } {
  if (cached === undefined) {
    const js = readAsset("dashboard.js");
    const css = readAsset("dashboard.css");
    const version = createHash("sha256").update(js).update(css).digest("hex").slice(0, 16);
    cached = { js, css, version };
  }
  return cached;
}

/**
 * Serves the bundle at /assets/dashboard.js and .css. The pages ask for `?v=<version>`: that URL
 * names one content, so it is cached for a year (`immutable`); any other is revalidated by ETag.
 * Compression is the server's (@fastify/compress).
 */
export function serveDashboardAssets(app: ZodApp): void {
  const asset = (name: "js" | "css", type: string) =>
    app.get(
      `/assets/dashboard.${name}`,
      {
        schema: {
          operationId: name === "js" ? "getDashboardScript" : "getDashboardStylesheet",
          summary: `The dashboard's ${name === "js" ? "script bundle" : "stylesheet"}`,
          tags: ["dashboard"],
          security: security.open,
          querystring: assetQuery,
          response: {
            200: textAnswer(
              type.split(";")[0] as string,
              z.string(),
              "The bundle (compressed when the client accepts it)",
            ),
            304: z.undefined().describe("Not modified: the If-None-Match ETag is the bundle's version"),
            ...errorAnswers({ 400: "`v` given more than once (INVALID_INPUT)" }),
          },
        },
      },
      async (request, reply) => {
        const assets = dashboardAssets();
        const etag = `"${assets.version}"`;
        reply.type(type).header("etag", etag).header("vary", "accept-encoding");
        if (request.query.v === assets.version)
          reply.header("cache-control", "public, max-age=31536000, immutable");
        else reply.header("cache-control", "no-cache");
        if (request.headers["if-none-match"] === etag) return reply.code(304).send();
        return reply.send(assets[name]);
      },
    );
  asset("js", "text/javascript; charset=utf-8");
  asset("css", "text/css; charset=utf-8");
}

/** The page shell: no data in it (the script fetches everything), so nothing to escape; the bundle by its version. */
export function pageHtml(page: "fleet" | "instance", title: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<link rel="stylesheet" href="/assets/dashboard.css?v=${dashboardAssets().version}">
<script defer src="/assets/dashboard.js?v=${dashboardAssets().version}"></script>
</head>
<body data-page="${page}">
<noscript>This dashboard needs JavaScript; the same data is at /api/ (see /openapi.json).</noscript>
</body>
</html>
`;
}

/** The Content-Security-Policy of every dashboard answer: only our own script, style and fetches. */
export const contentSecurityPolicy =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** The headers of every dashboard answer: the CSP, no sniffing, no referrer, no framing, no caching. */
export const securityHeaders = {
  "content-security-policy": contentSecurityPolicy,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "cache-control": "no-store",
};

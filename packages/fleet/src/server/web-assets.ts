import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

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

let cached: { js: string; css: string } | undefined;

/** The bundled script and stylesheet, read once. */
export function dashboardAssets(): { js: string; css: string } {
  cached ??= { js: readAsset("dashboard.js"), css: readAsset("dashboard.css") };
  return cached;
}

/** The page shell: no data in it (the script fetches everything), so nothing to escape. */
export function pageHtml(page: "fleet" | "instance", title: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<link rel="stylesheet" href="/assets/dashboard.css">
<script defer src="/assets/dashboard.js"></script>
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

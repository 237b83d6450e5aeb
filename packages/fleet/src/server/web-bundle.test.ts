import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { bundleDashboard } from "../../scripts/build-web.mjs";

// The browser bundle is committed (web/), so the package serves it without a build step and the
// browser tests need no global setup. This test keeps it honest: it rebuilds in memory and
// fails when the committed files are not what the sources make now.
describe("the committed dashboard bundle", () => {
  it("is what src/web/ builds to (run pnpm --filter @cuzkit/fleet build:web when this fails)", async () => {
    const built = await bundleDashboard();
    expect(Object.keys(built).sort()).toEqual(["dashboard.css", "dashboard.js"]);
    for (const [name, text] of Object.entries(built)) {
      const committed = readFileSync(fileURLToPath(new URL(`../../web/${name}`, import.meta.url)), "utf8");
      expect(committed === text, `web/${name} is stale`).toBe(true);
    }
    // uPlot is inside, not fetched from a CDN.
    expect(built["dashboard.js"]).toContain("uplot");
    expect(built["dashboard.js"]).not.toMatch(/https?:\/\/(cdn|unpkg|jsdelivr)/);
  });
});

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import chromium from "@sparticuz/chromium";
import puppeteer, { type Browser, type Page } from "puppeteer-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type DashboardFleet, seedDashboardFleet, startDashboardFleet } from "../testing/dashboard-fleet.js";

// The dashboard in a real headless Chromium (the one @sparticuz/chromium ships; no download).
// One browser for the file, a fresh page and fleet per test.

let browser: Browser;
let profile: string;
let d: DashboardFleet | undefined;
let page: Page | undefined;

beforeAll(async () => {
  profile = mkdtempSync(join(tmpdir(), "cuzkit-dashboard-chromium-"));
  browser = await puppeteer.launch({
    executablePath: await chromium.executablePath(),
    headless: true,
    // A C/POSIX locale reaches Chromium as "en-US@posix", which Intl refuses: name one.
    env: { ...process.env, LANG: "en_US.UTF-8", LC_ALL: "en_US.UTF-8" },
    args: [
      "--lang=en-US",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
      `--user-data-dir=${profile}`,
    ],
  });
}, 60_000);
afterAll(async () => {
  await browser?.close();
  rmSync(profile, { recursive: true, force: true });
});
afterEach(async () => {
  await page?.close();
  page = undefined;
  await d?.close();
  d = undefined;
});

async function open(path: string): Promise<Page> {
  page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 1000 });
  const errors: string[] = [];
  page.setDefaultTimeout(10_000);
  page.on("pageerror", (error) => errors.push(String(error)));
  await page.goto(`${(d as DashboardFleet).url}${path}`, { waitUntil: "domcontentloaded" });
  // The live stream is connected once the page says so.
  await page.waitForSelector('body[data-live="yes"]').catch((error) => {
    throw new Error(`the page did not go live: ${errors.join("; ") || String(error)}`);
  });
  expect(errors).toEqual([]);
  return page;
}

const rowState = (p: Page, id: string) =>
  p.$eval(`tr[data-instance-id="${id}"]`, (row) => row.getAttribute("data-state"));

/** How many pixels of a canvas are not transparent. */
const paintedPixels = (p: Page, selector: string) =>
  p.$eval(selector, (canvas) => {
    const c = canvas as HTMLCanvasElement;
    const data = (c.getContext("2d") as CanvasRenderingContext2D).getImageData(0, 0, c.width, c.height).data;
    let painted = 0;
    for (let i = 3; i < data.length; i += 4) if ((data[i] as number) > 0) painted += 1;
    return painted;
  });

describe("the fleet dashboard in Chromium", () => {
  it("loads from a seeded store, updates a row live when an agent reports a phase, and draws the chart", async () => {
    d = await startDashboardFleet();
    const seeded = await seedDashboardFleet(d);
    const p = await open("/");
    await p.waitForSelector(`tr[data-instance-id="${seeded.kept}"]`);
    expect(await rowState(p, seeded.kept)).toBe("active");
    expect(await rowState(p, seeded.vetting.id)).toBe("warmup");
    expect(await p.$eval(`tr[data-instance-id="${seeded.kept}"] .pph`, (c) => c.textContent)).toBe("48.5");
    expect(await p.$$eval("#hosts-table tbody tr", (rows) => rows.length)).toBe(1);
    await p.waitForSelector("#events li");

    // The chart: uPlot draws the proofs/hour lines onto its canvas.
    await p.waitForSelector("#pph-chart canvas");
    expect(await paintedPixels(p, "#pph-chart canvas")).toBeGreaterThan(500);

    // No reload: a marker set on the window survives while the row changes.
    await p.evaluate(() => {
      (window as unknown as { marker: number }).marker = 42;
    });
    await d.agent(seeded.vetting.id, seeded.vetting.token, "phase", { phase: "benchmarking" });
    await p.waitForSelector(`tr[data-instance-id="${seeded.vetting.id}"][data-state="benchmarking"]`);
    expect(await p.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(42);

    const shot = fileURLToPath(new URL("../../../../docs/dashboard.png", import.meta.url));
    writeFileSync(shot, await p.screenshot({ fullPage: true, type: "png" }));
  });

  it("shows a label containing <script> as text and runs none of it", async () => {
    d = await startDashboardFleet();
    const seeded = await seedDashboardFleet(d);
    const p = await open("/");
    const label = await p.waitForSelector(`tr[data-instance-id="${seeded.hostile}"] a.label`);
    expect(await label?.evaluate((a) => a.textContent)).toBe(
      `<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">`,
    );
    expect(await p.$$eval("main script, main img", (nodes) => nodes.length)).toBe(0);
    expect(await p.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
  });

  it("refuses a destroy without the admin token and does it with the token", async () => {
    d = await startDashboardFleet();
    const seeded = await seedDashboardFleet(d);
    const store = d.fleet.manager.store;
    const p = await open("/");
    const button = `tr[data-instance-id="${seeded.kept}"] button[data-action="destroy"]`;
    await p.waitForSelector(button);
    await p.click(button);
    await p.waitForSelector("#notice.error");
    expect(await p.$eval("#notice", (n) => n.textContent)).toContain("destroy refused");
    expect((await store.require(seeded.kept)).state).toBe("active");

    await p.type("#admin-token", d.adminToken);
    await Promise.all([p.waitForNavigation(), p.click("#save-token")]);
    await p.waitForSelector(button);
    await p.click(button);
    await p.waitForSelector("#notice.ok");
    await p.waitForSelector(`tr[data-instance-id="${seeded.kept}"][data-state="destroyed"]`);
    expect((await store.require(seeded.kept)).state).toBe("destroyed");
  });

  it("shows an instance's phases, its latency chart and the daemon's /status", async () => {
    d = await startDashboardFleet();
    const seeded = await seedDashboardFleet(d);
    const p = await open(`/instances/${seeded.kept}`);
    await p.waitForSelector("#phases-table tbody tr");
    expect(
      await p.$$eval("#phases-table tbody tr td:first-child", (cells) => cells.map((c) => c.textContent)),
    ).toEqual(["planned", "renting", "booting", "registered", "params", "warmup", "benchmarking", "active"]);
    await p.waitForSelector("#latency-chart canvas");
    expect(await paintedPixels(p, "#latency-chart canvas")).toBeGreaterThan(200);
    expect(await p.$eval("#memory", (m) => m.textContent)).toContain("250.0 GiB of 400.0 GiB");
    expect(await p.$eval("#pipelines-table tbody", (t) => t.textContent)).toContain("4 / 10");
    expect(await p.$eval("#workers-table tbody", (t) => t.textContent)).toContain("proving");
  });
});

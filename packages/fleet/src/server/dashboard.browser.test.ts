import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import chromium from "@sparticuz/chromium";
import puppeteer, { type Browser, type Page } from "puppeteer-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { cuzkitArgv, cuzkitShellCommand } from "../../../../test/support/cuzkit-process.js";
import { startFreezableProxy } from "../../../../test/support/freezable-proxy.js";
import { killProcesses, processesMentioning } from "../../../../test/support/processes.js";
import { settlesWithin } from "../../../../test/support/settles-within.js";
import {
  type DashboardFleet,
  seedDashboardFleet,
  startDashboardFleet,
} from "../test-support/dashboard-fleet.js";

/**
 * Ticks the "show destroyed" filter once the list counts `count` destroyed instances, and checks
 * that the tick reached the page (its change event fired). Finding and clicking are one task in
 * the page: `$eval` would be two round trips (`$`, then `evaluate`).
 */
async function showDestroyed(p: Page, count: number): Promise<void> {
  await p.waitForFunction(
    (n) => document.querySelector("label.filter")?.textContent?.includes(`show destroyed (${n})`) === true,
    {},
    count,
  );
  const changed = await p.evaluate(() => {
    const box = document.querySelector("#show-destroyed") as HTMLInputElement;
    let fired = false;
    box.addEventListener("change", () => (fired = true), { once: true });
    box.click();
    return fired && box.checked;
  });
  expect(changed, "ticking show destroyed fired no change event").toBe(true);
}

// The dashboard in a real headless Chromium (the one @sparticuz/chromium ships; no download).
// One browser for the file, a fresh page and fleet per test.

let browser: Browser;
let profile: string;
let d: DashboardFleet | undefined;
let page: Page | undefined;
let agent:
  | {
      child: ChildProcess;
      output: string[];
      exited: Promise<unknown>;
      dir: string;
      /** The relay the agent reads the daemon's /status through, and its port. */
      relay: { close(): Promise<void> };
      statusPort: number;
    }
  | undefined;

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
  // Chromium's close can hang (puppeteer#4882): kill it if it does not close in time.
  if (browser && !(await settlesWithin(browser.close(), 10_000))) browser.process()?.kill("SIGKILL");
  rmSync(profile, { recursive: true, force: true });
});
afterEach(async () => {
  // The processes first, so that nothing is left running whatever the page does; the agent before
  // the manager: with no manager its report would wait out the reporter's retries.
  try {
    await stopAgent();
  } finally {
    await d?.close();
    d = undefined;
    // A page's close can hang in Chromium (once in CI, under load, past the hook's 40 s); the next
    // test opens a page of its own, and the browser goes in afterAll.
    const closing = page;
    page = undefined;
    if (closing) await settlesWithin(closing.close(), 5_000);
  }
}, 40_000);

/** Stops the test's agent and checks that it took its daemon with it. */
async function stopAgent(): Promise<void> {
  if (agent !== undefined) {
    const a = agent;
    agent = undefined;
    // SIGTERM: the agent stops the daemon it started (the daemon runs in its own process group,
    // so killing the agent's group would leave it behind). SIGKILL only if it does not end.
    if (a.child.exitCode === null && a.child.signalCode === null) a.child.kill("SIGTERM");
    const ended = await settlesWithin(a.exited, 20_000);
    if (!ended && a.child.pid !== undefined) process.kill(-a.child.pid, "SIGKILL");
    await a.exited;
    await a.relay.close();
    // The agent's daemon dials a socket in the agent's folder.
    const left = processesMentioning(a.dir);
    killProcesses(left);
    rmSync(a.dir, { recursive: true, force: true });
    expect(ended, "the agent did not end on SIGTERM").toBe(true);
    expect(left, "the agent left its daemon running").toEqual([]);
  }
}

/**
 * The daemon's /status at an address known before the daemon starts (the agent writes it into
 * the tuned config and reads it): this relay listens on 127.0.0.1:0 and keeps its port, so
 * nothing can take it in between, and passes each request on to the simulated daemon, which
 * binds a port of its own and prints `status <url>` to `simOutput` (its stdout). Until then,
 * and while the daemon restarts, it answers 503, as an unreachable daemon would fail the read.
 */
async function startStatusRelay(simOutput: string): Promise<{ port: number; close(): Promise<void> }> {
  const server = createServer((request, response) => {
    const url = /^status (\S+)$/m.exec(existsSync(simOutput) ? readFileSync(simOutput, "utf8") : "")?.[1];
    const answer = (status: number, type: string, body: string) => {
      response.writeHead(status, { "content-type": type }).end(body);
    };
    if (url === undefined || request.url !== "/status") return answer(503, "text/plain", "no daemon yet");
    fetch(url).then(
      async (r) => answer(r.status, r.headers.get("content-type") ?? "application/json", await r.text()),
      (error: unknown) => answer(503, "text/plain", String(error)),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  return {
    port: typeof address === "object" && address !== null ? address.port : 0,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * Starts a real `cuzkit agent` process (its own process group) in front of a simulated daemon
 * serving /status, which the agent reads through a relay at `127.0.0.1:statusPort`.
 */
async function startAgent(args: string[], env: Record<string, string>) {
  const dir = mkdtempSync(join(tmpdir(), "cuzkit-agent-page-"));
  const simOutput = join(dir, "sim.out");
  const relay = await startStatusRelay(simOutput);
  const statusPort = relay.port;
  const machine = ["--ram", "251GiB", "--cores", "32", "--gpus", "2xRTX3090"];
  // The harness fills in {config} and {addr}; the sim's stdout (its status URL) goes to the relay's file.
  const sim = `${cuzkitShellCommand()} sim ${machine.join(" ")} --time-scale 0.004 --pce-cached --status-listen 127.0.0.1:0 --config {config} --listen {addr} > ${JSON.stringify(simOutput)}`;
  const [node, base] = cuzkitArgv();
  const child = spawn(
    node,
    [
      ...base,
      "agent",
      "--synthetic",
      "--spawn",
      sim,
      "--addr",
      `unix://${join(dir, "cuzk.sock")}`,
      "--status-listen",
      `127.0.0.1:${statusPort}`,
      "--ready-timeout",
      "30s",
      "--report-dir",
      join(dir, "reports"),
      ...machine,
      ...args,
    ],
    { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"], detached: true },
  );
  const output: string[] = [];
  child.stdout?.on("data", (chunk: Buffer) => output.push(chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => output.push(chunk.toString()));
  const exited = new Promise((resolve) => child.once("exit", resolve));
  agent = { child, output, exited, dir, relay, statusPort };
  return agent;
}

/** Resolves with the first line of the agent's output that matches, or rejects when it exits first. */
function agentLine(a: NonNullable<typeof agent>, pattern: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    const look = () => {
      const line = a.output
        .join("")
        .split("\n")
        .find((l) => pattern.test(l));
      if (line !== undefined) resolve(line);
      return line !== undefined;
    };
    if (look()) return;
    const onData = () => {
      if (!look()) return;
      a.child.stdout?.off("data", onData);
      a.child.stderr?.off("data", onData);
    };
    a.child.stdout?.on("data", onData);
    a.child.stderr?.on("data", onData);
    void a.exited.then(() => {
      if (!look()) reject(new Error(`the agent exited before printing ${pattern}: ${a.output.join("")}`));
    });
  });
}

async function open(path: string, base = (d as DashboardFleet).url): Promise<Page> {
  page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 1000 });
  const errors: string[] = [];
  page.setDefaultTimeout(10_000);
  page.on("pageerror", (error) => errors.push(String(error)));
  await page.goto(`${base}${path}`, { waitUntil: "domcontentloaded" });
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
    // Curio's own rate of the machine, beside the benchmark's.
    expect(await p.$eval(`tr[data-instance-id="${seeded.kept}"] .curio`, (c) => c.textContent)).toBe(
      "PoRep 41.2 (1 failed)",
    );
    expect(await p.$$eval("#hosts-table tbody tr", (rows) => rows.length)).toBe(1);
    await p.waitForSelector("#events li");

    // The chart: uPlot draws the proofs/hour lines onto its canvas.
    await p.waitForSelector("#pph-chart canvas");
    expect(await paintedPixels(p, "#pph-chart canvas")).toBeGreaterThan(500);
    // Spend over time: $/h and $ per 1000 proofs, drawn for the chosen range.
    await p.waitForSelector("#spend-chart canvas");
    await p.waitForSelector("#cost-chart canvas");
    expect(await paintedPixels(p, "#spend-chart canvas")).toBeGreaterThan(500);
    expect(await p.$eval("#chart-range", (s) => (s as HTMLSelectElement).value)).toBe("86400");

    // The offers overlay: each estimate of the rate, the one used in bold, the price per proof.
    await p.waitForSelector("#offers-table tbody tr");
    const offerRow = (id: number) =>
      p.$eval(`#offers-table tr[data-offer-id="${id}"]`, (row) => ({
        source: row.getAttribute("data-source"),
        cells: Array.from(row.querySelectorAll("td"), (c) => c.textContent),
        used: row.querySelector("td.used")?.getAttribute("data-estimate"),
      }));
    const measured = await offerRow(1002);
    expect(measured.source).toBe("measured");
    expect(measured.used).toBe("measured");
    // Offer, machine, GPUs, where, fits, predicted, corrected, measured (runs), used, $/h, $/1000, reliability.
    expect(measured.cells.slice(0, 12)).toEqual([
      "1002",
      "502",
      "2× RTX 3090",
      "Czechia, CZ",
      "yes",
      "62.6",
      "48.5",
      "48.5 (1)",
      "measured",
      "0.450",
      ((0.45 / (48.5 * 0.98)) * 1000).toFixed(2),
      "0.98",
    ]);
    const corrected = await offerRow(1005);
    expect(corrected.used).toBe("corrected");
    expect(corrected.cells[7]).toBe("–");
    expect(
      await p.$$eval("#excluded-offers-table tbody tr td.fits", (c) => c.map((x) => x.textContent)),
    ).toEqual(["no", "no"]);

    // No reload: a marker set on the window survives while the row changes.
    await p.evaluate(() => {
      (window as unknown as { marker: number }).marker = 42;
    });
    await d.agent(seeded.vetting.id, seeded.vetting.token, "phase", { phase: "benchmarking" });
    await p.waitForSelector(`tr[data-instance-id="${seeded.vetting.id}"][data-state="benchmarking"]`);
    expect(await p.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(42);

    // The page as shown; docs/dashboard.png is remade only when asked, so a test run leaves the
    // tree clean (CUZKIT_UPDATE_SCREENSHOT=1 pnpm vitest run packages/fleet/src/server/dashboard.browser.test.ts).
    const shot = await p.screenshot({ fullPage: true, type: "png" });
    expect(Buffer.from(shot).subarray(1, 4).toString("latin1")).toBe("PNG");
    if (process.env.CUZKIT_UPDATE_SCREENSHOT === "1")
      writeFileSync(fileURLToPath(new URL("../../../../docs/dashboard.png", import.meta.url)), shot);
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

  it("says stale when the manager goes silent, keeps ages counting, and goes live again", async () => {
    // The page reaches the manager through a proxy that can freeze; the manager's Host check
    // must allow the proxy's address.
    const proxy = await startFreezableProxy(() => Number(new URL((d as DashboardFleet).url).port));
    d = await startDashboardFleet({ streamTickMs: 400, allowedHosts: [`127.0.0.1:${proxy.port}`] });
    const seeded = await seedDashboardFleet(d);
    try {
      const p = await open("/", proxy.url);
      // Every state the page shows, in order.
      await p.evaluate(() => {
        const seen: string[] = [];
        (window as unknown as { liveStates: string[] }).liveStates = seen;
        seen.push(document.body.getAttribute("data-live") ?? "");
        // Each change of state (the page sets the attribute on every message; repeats are not changes).
        const note = () => {
          const now = document.body.getAttribute("data-live") ?? "";
          if (seen.at(-1) !== now) seen.push(now);
        };
        new MutationObserver(note).observe(document.body, {
          attributes: true,
          attributeFilter: ["data-live"],
        });
      });
      const states = () => p.evaluate(() => (window as unknown as { liveStates: string[] }).liveStates);
      expect(await p.$eval("#stream-state", (e) => e.textContent)).toBe("live");
      // Ticks keep it live: five ticks (of 400 ms) on, it has never been anything but live.
      const heardBefore = await p.$eval("#stream-state", (e) => Number(e.getAttribute("data-heard")));
      await p.waitForFunction(
        (before) => Number(document.querySelector("#stream-state")?.getAttribute("data-heard")) >= before + 5,
        {},
        heardBefore,
      );
      expect(await states()).toEqual(["yes"]);
      const ageCell = `tr[data-instance-id="${seeded.kept}"] span.age`;

      // The manager goes silent (as a paused process: the connection stays open).
      proxy.freeze();
      await p.waitForSelector('body[data-live="stale"]');
      expect(await p.$eval("#stream-state", (e) => e.textContent)).toMatch(
        /^stale since \d\d:\d\d:\d\d: nothing from the manager for \d+s$/,
      );
      // Nothing refreshes the table now, and the heartbeat's age still counts, on the page's clock.
      const frozenAge = Number.parseInt((await p.$eval(ageCell, (e) => e.textContent)) ?? "", 10);
      expect(frozenAge).toBeGreaterThanOrEqual(30);
      await p.waitForFunction(
        (sel, first) => Number.parseInt(document.querySelector(sel)?.textContent ?? "0", 10) >= first + 2,
        {},
        ageCell,
        frozenAge,
      );

      // It speaks again: live.
      proxy.thaw();
      await p.waitForSelector('body[data-live="yes"]');
      expect(await states()).toEqual(["yes", "stale", "yes"]);
    } finally {
      await proxy.close();
    }
  });

  it("asks before a destroy, showing what it will do; a cancel sends nothing; without the token it is refused", async () => {
    d = await startDashboardFleet();
    const seeded = await seedDashboardFleet(d);
    const store = d.fleet.manager.store;
    const p = await open("/");
    const posts: string[] = [];
    p.on("request", (request) => {
      if (request.method() === "POST") posts.push(request.url());
    });
    const button = `tr[data-instance-id="${seeded.kept}"] button[data-action="destroy"]`;
    await p.waitForSelector(button);
    await p.click(button);
    // The dialog says which instance, its state and price, and what the destroy costs.
    await p.waitForSelector("dialog#confirm-action[open]");
    const said = await p.$eval("dialog#confirm-action", (e) => e.textContent ?? "");
    expect(said).toContain(seeded.kept);
    expect(said).toContain("active");
    expect(said).toMatch(/\$\d+\.\d{3}\/h/);
    expect(said).toContain("stops billing");
    // The seeded machine is a Curio node with production: it will be cordoned and drained first.
    expect(said).toContain("cordoned first and drained");
    await p.click("#confirm-no");
    await p.waitForFunction(() => document.querySelector("dialog#confirm-action") === null);
    expect(posts).toEqual([]);
    expect((await store.require(seeded.kept)).state).toBe("active");

    // Confirmed without the token: refused, nothing changed.
    await p.click(button);
    await p.waitForSelector("dialog#confirm-action[open]");
    await p.click("#confirm-yes");
    await p.waitForSelector("#notice.error");
    expect(await p.$eval("#notice", (n) => n.textContent)).toContain("destroy refused");
    expect((await store.require(seeded.kept)).state).toBe("active");

    await p.type("#admin-token", d.adminToken);
    await Promise.all([p.waitForNavigation(), p.click("#save-token")]);
    await p.waitForSelector(button);
    await p.click(button);
    await p.waitForSelector("dialog#confirm-action[open]");
    await p.click("#confirm-yes");
    await p.waitForSelector("#notice.ok");
    // A destroyed row is folded away; the filter brings it back, marked destroyed.
    await p.waitForFunction(
      (id) => document.querySelector(`tr[data-instance-id="${id}"]`) === null,
      {},
      seeded.kept,
    );
    expect((await store.require(seeded.kept)).state).toBe("destroyed");
    await showDestroyed(p, 1);
    await p.waitForSelector(`tr[data-instance-id="${seeded.kept}"][data-state="destroyed"]`);
  });

  it("fits a 390 px screen without sideways scrolling, and folds destroyed instances away", async () => {
    d = await startDashboardFleet();
    const seeded = await seedDashboardFleet(d);
    await d.fleet.manager.destroy(seeded.vetting.id);
    const p = await open("/");
    await p.setViewport({ width: 390, height: 844 });
    await p.waitForSelector(`tr[data-instance-id="${seeded.kept}"]`);
    await p.waitForSelector("#pph-chart canvas");
    const overflow = () => p.evaluate(() => document.documentElement.scrollWidth);
    expect(await overflow()).toBeLessThanOrEqual(390);
    // The destroyed one is folded away, and counted.
    expect(await p.$(`tr[data-instance-id="${seeded.vetting.id}"]`)).toBeNull();
    expect(await p.$eval("label.filter", (e) => e.textContent)).toContain("show destroyed (1)");
    // The filter is one element for the page's life: a click on a checkbox that a refresh has
    // just replaced fires no change event (a detached checkbox does not), so the tick was lost
    // whenever a refresh landed between finding the box and clicking it.
    await p.evaluate(() => {
      (window as unknown as { filterBox: Element | null }).filterBox =
        document.querySelector("#show-destroyed");
    });
    await d.fleet.manager.store.appendEvent(seeded.kept, "operator-note", { why: "force a refresh" });
    await p.waitForFunction(() => document.querySelector("#events")?.textContent?.includes("operator-note"));
    expect(
      await p.evaluate(
        () =>
          (window as unknown as { filterBox: Element | null }).filterBox ===
          document.querySelector("#show-destroyed"),
      ),
    ).toBe(true);
    await showDestroyed(p, 1);
    await p.waitForSelector(`tr[data-instance-id="${seeded.vetting.id}"][data-state="destroyed"]`);
    // The instance page fits too.
    await p.close();
    const instancePage = await open(`/instances/${encodeURIComponent(seeded.kept)}`);
    await instancePage.setViewport({ width: 390, height: 844 });
    await instancePage.waitForSelector("#phases-table tbody tr");
    expect(await instancePage.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  });

  it("asks before a cordon, and the dialog fits a 390 px phone screen", async () => {
    d = await startDashboardFleet();
    const seeded = await seedDashboardFleet(d);
    const p = await open("/");
    await p.setViewport({ width: 390, height: 844 });
    const button = `tr[data-instance-id="${seeded.kept}"] button[data-action="cordon"]`;
    await p.waitForSelector(button);
    await p.$eval(button, (b) => (b as HTMLButtonElement).click());
    await p.waitForSelector("dialog#confirm-action[open]");
    const said = await p.$eval("dialog#confirm-action", (e) => e.textContent ?? "");
    expect(said).toContain("not rented again until the exclusion is lifted");
    expect(said).toContain("keeps running");
    const box = await p.$eval("dialog#confirm-action", (e) => e.getBoundingClientRect().toJSON() as DOMRect);
    expect(box.left).toBeGreaterThanOrEqual(0);
    expect(box.right).toBeLessThanOrEqual(390);
    // Escape is a cancel.
    await p.keyboard.press("Escape");
    await p.waitForFunction(() => document.querySelector("dialog#confirm-action") === null);
    expect(await p.$eval("#notice", (n) => n.textContent)).toContain("cancelled");
    expect((await d.fleet.manager.machines()).machines.some((m) => m.excluded)).toBe(false);
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

describe("a real agent's daemon /status in Chromium", () => {
  it("the fleet's instance page shows what a real agent forwarded from its simulated daemon", async () => {
    d = await startDashboardFleet({}, { heartbeatIntervalMs: 100, benchmarkProofs: 3, minProofsPerHour: 1 });
    const fleet = d;
    const { id, token } = await fleet.deploy(1002);
    // Keep the first status taken while a proof ran: later heartbeats (idle daemon) replace nothing.
    const busy = new Promise<Record<string, unknown>>((resolve) => {
      const set = fleet.board.set.bind(fleet.board);
      let kept = false;
      fleet.board.set = (instanceId, status, at) => {
        if (kept) return;
        set(instanceId, status, at);
        if (Array.isArray(status.pipelines) && status.pipelines.length > 0) {
          kept = true;
          resolve(status);
        }
      };
    });
    const a = await startAgent([], {
      CUZKIT_FLEET_URL: fleet.url,
      CUZKIT_FLEET_TOKEN: token,
      CUZKIT_INSTANCE_ID: id,
    });
    const status = await Promise.race([
      busy,
      a.exited.then(() => {
        throw new Error(`the agent ended before it forwarded a busy /status: ${a.output.join("")}`);
      }),
    ]);
    expect(status.raw).toBeUndefined(); // the parsed copy only
    expect(status.memory).toMatchObject({ totalBytes: expect.any(Number), usedBytes: expect.any(Number) });
    // The tuned config the agent reported turns the daemon's /status on where the agent reads it.
    expect((await fleet.fleet.manager.store.require(id)).tunedConfig).toContain(
      `status_listen = "127.0.0.1:${a.statusPort}"`,
    );

    const p = await open(`/instances/${id}`);
    await p.waitForSelector("#workers-table tbody tr");
    expect(await p.$$eval("#workers-table tbody tr", (rows) => rows.length)).toBe(
      (status.gpuWorkers as unknown[]).length,
    );
    expect(await p.$eval("#pipelines-table tbody", (t) => t.textContent)).toMatch(/porep-c2\d+ \/ 10/);
    expect(await p.$eval("#memory", (m) => m.textContent)).toMatch(
      /memory \d+\.\d GiB of \d+\.\d GiB budget/,
    );
  }, 90_000);
});

describe("the agent's own page (cuzkit agent --ui-listen) in Chromium", () => {
  it("shows the agent's phase live and the daemon's /status, with no fleet", async () => {
    const a = await startAgent(["--ui-listen", "127.0.0.1:0", "--count", "2"], {});
    const line = await agentLine(a, /^agent page at /);
    const base = (/at (http:\/\/127\.0\.0\.1:\d+)\//.exec(line) ?? [])[1] as string;
    const p = await open("/", base);
    expect(p.url()).toBe(`${base}/instances/local`);
    // The phase moves on without a reload until the machine is kept and serves.
    await p.evaluate(() => {
      (window as unknown as { marker: number }).marker = 7;
    });
    await p.waitForSelector("#instance-state", { timeout: 60_000 });
    await p.waitForFunction(() => document.querySelector("#instance-state")?.textContent === "serving", {
      timeout: 60_000,
    });
    expect(await p.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(7);
    expect(
      await p.$$eval("#phases-table tbody tr td:first-child", (cells) => cells.map((c) => c.textContent)),
    ).toEqual(["starting", "registered", "params", "warmup", "benchmarking", "serving"]);
    // The daemon's /status, read live from the simulated daemon the agent started.
    await p.waitForSelector("#workers-table tbody tr");
    expect(await p.$$eval("#workers-table tbody tr", (rows) => rows.length)).toBeGreaterThanOrEqual(2);
    expect(await p.$eval("#memory", (m) => m.textContent)).toMatch(
      /memory \d+\.\d GiB of \d+\.\d GiB budget/,
    );
    expect(await p.$eval("#facts", (f) => f.textContent)).not.toContain("$");
  }, 90_000);
});

describe("a failing agent's log tail in Chromium", () => {
  it("the instance page shows the tail a real agent shipped beside its failure, secrets redacted, at 1280 and 390 px", async () => {
    d = await startDashboardFleet({}, { heartbeatIntervalMs: 100 });
    const fleet = d;
    const { id, token } = await fleet.deploy(1002);
    const vastKey = "5ecre7ab12cd34ef56ab78cd90ef12ab34cd56ef78ab90cd12ef34ab56cd78ef";
    // A daemon that prints secrets of each kind, a line far wider than a phone, and dies starting.
    const daemon = [
      'echo "vast key $CONTAINER_API_KEY"',
      'echo "fleet token $CUZKIT_FLEET_TOKEN"',
      'echo "dsn postgres://curio:pg-secret-pw@db.internal:5433/yugabyte"',
      `echo "${"partition-".repeat(40)}"`,
      'echo "fatal: CUDA out of memory allocating 24 GiB" >&2',
      "exit 3 # {config} {addr}",
    ].join("; ");
    const dir = mkdtempSync(join(tmpdir(), "cuzkit-agent-logs-"));
    const [node, base] = cuzkitArgv();
    const child = spawn(
      node,
      [
        ...base,
        "agent",
        "--synthetic",
        "--spawn",
        daemon,
        "--addr",
        `unix://${join(dir, "cuzk.sock")}`,
        "--status-listen",
        "off",
        "--ready-timeout",
        "30s",
        ...["--ram", "251GiB", "--cores", "32", "--gpus", "2xRTX3090"],
      ],
      {
        env: {
          ...process.env,
          CUZKIT_FLEET_URL: fleet.url,
          CUZKIT_FLEET_TOKEN: token,
          CUZKIT_INSTANCE_ID: id,
          CONTAINER_API_KEY: vastKey,
        },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    const output: string[] = [];
    child.stdout?.on("data", (chunk: Buffer) => output.push(chunk.toString()));
    child.stderr?.on("data", (chunk: Buffer) => output.push(chunk.toString()));
    try {
      const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
      expect(code, output.join("")).toBe(1);
      expect(output.join(""), "the agent's own output").toContain("agent step failed");

      const p = await open(`/instances/${id}`);
      await p.waitForSelector("#log-tail li");
      const shown = await p.$eval("#log-tail", (e) => e.textContent ?? "");
      expect(shown).toContain("fatal: CUDA out of memory allocating 24 GiB");
      expect(shown).toContain("vast key [REDACTED]");
      expect(shown).toContain("fleet token [REDACTED]");
      expect(shown).toContain("postgres://curio:[REDACTED]@db.internal");
      expect(shown).toContain("error agent step failed");
      const page = await p.content();
      for (const secret of [vastKey, token, "pg-secret-pw"]) expect(page).not.toContain(secret);
      // Beside the failure it explains.
      expect(await p.$eval("#log-failure", (e) => e.textContent)).toMatch(/^warmup failed: /);
      expect(await p.$eval("#log-tail li[data-stream='daemon']", (e) => e.textContent)).toMatch(
        /^\d\d:\d\d:\d\d daemon vast key \[REDACTED\]$/,
      );

      // At 390 px the wide line wraps in its box: nothing makes the page scroll sideways.
      await p.setViewport({ width: 390, height: 844 });
      await p.waitForFunction(() => document.documentElement.scrollWidth <= 390);
      const box = await p.$eval("#log-tail", (e) => e.getBoundingClientRect().toJSON() as DOMRect);
      expect(box.left).toBeGreaterThanOrEqual(0);
      expect(box.right).toBeLessThanOrEqual(390);
      const wide = await p.$$eval("#log-tail li", (items) =>
        items.filter((li) => li.scrollWidth > li.clientWidth).map((li) => li.textContent),
      );
      expect(wide).toEqual([]);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      killProcesses(processesMentioning(dir));
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});

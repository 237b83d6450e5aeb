import { afterEach, describe, expect, it } from "vitest";
import {
  type DashboardFleet,
  sampleDaemonStatus,
  seedDashboardFleet,
  startDashboardFleet,
  testAdminToken,
} from "../test-support/dashboard-fleet.js";
import { keptPath } from "../test-support/fixtures.js";
import type { OfferView } from "./dashboard-views.js";

let d: DashboardFleet | undefined;
afterEach(async () => {
  await d?.close();
  d = undefined;
});

const auth = { authorization: `Bearer ${testAdminToken}` };
async function get(path: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${(d as DashboardFleet).url}${path}`, { headers });
  return { status: response.status, headers: response.headers, text: await response.text() };
}
async function post(path: string, headers: Record<string, string> = {}, body: unknown = {}) {
  const response = await fetch(`${(d as DashboardFleet).url}${path}`, {
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

describe("the dashboard's JSON API over HTTP", () => {
  it("shows instances with $/1000 proofs, phases, per-proof records and the forwarded daemon /status, and no token", async () => {
    d = await startDashboardFleet();
    const seeded = await seedDashboardFleet(d);
    const list = JSON.parse((await get("/api/instances")).text) as { instances: Record<string, unknown>[] };
    expect(list.instances.map((i) => i.state)).toEqual(["active", "warmup", "planned"]);
    const kept = list.instances[0] as Record<string, unknown>;
    expect(kept).toMatchObject({
      id: seeded.kept,
      proofsPerHour: 48.5,
      rateBasis: "benchmark",
      claimedProofsPerHour: 48.5,
      benchmarkProofsPerHour: 48.5,
      gpuName: expect.any(String),
    });
    expect(kept.dollarsPer1000Proofs).toBeCloseTo(((kept.dphPerHour as number) / 48.5) * 1000, 6);

    const detailText = (await get(`/api/instances/${seeded.kept}`)).text;
    const detail = JSON.parse(detailText);
    expect(detail.phases.map((p: { state: string }) => p.state)).toEqual(keptPath);
    expect(detail.benchmark.proofs).toHaveLength(13); // the warmup and 12 timed proofs
    expect(detail.benchmark.proofs[12]).toEqual({
      index: 12,
      warmup: false,
      ok: true,
      wallMs: 74_000,
      code: null,
    });
    expect(detail.daemonStatus.status).toEqual(sampleDaemonStatus);

    // Neither an agent token nor its hash nor the Vast key appears in any read.
    const everything = [
      detailText,
      (await get("/api/instances")).text,
      (await get("/api/events?limit=1000")).text,
      (await get("/api/host-performance")).text,
      (await get("/api/summary")).text,
      (await get("/metrics")).text,
    ].join("\n");
    const record = await d.fleet.manager.store.require(seeded.kept);
    expect(everything).not.toContain(record.tokenHash);
    expect(everything).not.toContain(d.fleet.tokenOf(seeded.kept));
    expect(everything).not.toContain(d.fleet.fake.apiKey);
    expect(everything).not.toContain("tunedConfig");
  });

  it("answers the host table, the fleet series, ranked offers and events", async () => {
    d = await startDashboardFleet();
    // Offers first, while the fake market still has some: the manager's ranking, in its order.
    const before = JSON.parse((await get("/api/offers")).text) as { offers: OfferView[] };
    const ranked = await d.fleet.manager.rank();
    expect(before.offers.length).toBeGreaterThan(0);
    expect(before.offers.map((o) => o.offerId)).toEqual(ranked.map((r) => r.offer.id));
    // Nothing measured yet: the model alone.
    expect(before.offers.every((o) => o.source === "predicted" && o.correctedProofsPerHour === null)).toBe(
      true,
    );
    const seeded = await seedDashboardFleet(d);
    // After a benchmark: the overlay of `fleet offers`, row for row the manager's ranking.
    const after = JSON.parse((await get("/api/offers")).text) as {
      offers: OfferView[];
      excluded: { offerId: number; fits: boolean; reason: string }[];
    };
    const { ranked: now, excluded } = await d.fleet.manager.rankAll();
    expect(after.offers).toEqual(
      now.map((r) =>
        expect.objectContaining({
          offerId: r.offer.id,
          fits: true,
          predictedProofsPerHour: r.ranking.predictedProofsPerHour,
          correctedProofsPerHour: r.ranking.correctedProofsPerHour ?? null,
          measuredProofsPerHour: r.ranking.measured?.proofsPerHour ?? null,
          measuredRuns: r.ranking.measured?.runs ?? 0,
          source: r.ranking.source,
          dphPerHour: r.offer.dphTotal,
          costPer1000: r.ranking.costPer1000,
          reliability: r.ranking.reliability,
        }),
      ),
    );
    const byId = new Map(after.offers.map((o) => [o.offerId, o]));
    expect(byId.get(1002)).toMatchObject({
      source: "measured",
      measuredProofsPerHour: 48.5,
      measuredRuns: 1,
    });
    expect(byId.get(1005)).toMatchObject({ source: "corrected", correctedProofsPerHour: 48.5 });
    expect(byId.get(1002)?.costPer1000).toBeCloseTo((0.45 / (48.5 * 0.98)) * 1000, 6);
    expect(after.excluded.map((x) => x.offerId)).toEqual(excluded.map((x) => x.offer.id));
    expect(after.excluded.every((x) => x.fits === false && x.reason.length > 0)).toBe(true);
    // The OpenAPI document's Offer schema names fields the answer has.
    const document = JSON.parse((await get("/openapi.json")).text);
    for (const field of document.components.schemas.Offer.required as string[])
      expect(after.offers.every((o) => field in o)).toBe(true);
    const hosts = JSON.parse((await get("/api/host-performance")).text).hosts;
    expect(hosts).toEqual([
      expect.objectContaining({ instanceId: seeded.kept, verdict: "MET", proofsPerHour: 48.5 }),
    ]);
    const series = JSON.parse((await get("/api/proofs-per-hour")).text);
    expect(series.lines).toHaveLength(1);
    expect(series.fleet.at(-1)).toBe(48.5);
    expect(series.times).toHaveLength(2);
    const events = JSON.parse((await get("/api/events?limit=3")).text).events as { seq: number }[];
    expect(events).toHaveLength(3);
    const all = JSON.parse((await get("/api/events?limit=1000")).text).events as { seq: number }[];
    expect(events.map((e) => e.seq)).toEqual(all.slice(-3).map((e) => e.seq));
    expect((await get("/api/events?limit=0")).status).toBe(400);
    expect((await get("/api/instances/i-ffffffff")).status).toBe(404);
  });

  it("refuses deploy, cordon and destroy without the admin token and changes nothing; with it, they act", async () => {
    d = await startDashboardFleet();
    const store = d.fleet.manager.store;
    const creates = () => d?.fleet.fake.requestsTo(/^\/api\/v0\/asks\/\d+\/$/, "PUT").length;
    for (const headers of [{}, { authorization: "Bearer wrong-token-wrong-token" }]) {
      const refused = await post("/api/deploy", headers, { offerId: 1002 });
      expect(refused).toMatchObject({ status: 401, json: { ok: false, error: "ADMIN_TOKEN_REQUIRED" } });
    }
    expect(await store.list()).toHaveLength(0);
    expect(creates()).toBe(0);

    expect((await post("/api/deploy", auth, { offerId: "x" })).status).toBe(400);
    const deployed = await post("/api/deploy", auth, { offerId: 1002 });
    expect(deployed.json, JSON.stringify(deployed.json)).toMatchObject({
      ok: true,
      instance: { state: "booting" },
    });
    const id = (deployed.json.instance as { id: string }).id;
    expect(creates()).toBe(1);
    const again = await post("/api/deploy", auth, { offerId: 1002 }); // rented already
    expect(again).toMatchObject({
      status: 409,
      json: { error: "FLEET_OFFER_REFUSED", hint: expect.any(String) },
    });
    expect(await store.list()).toHaveLength(1); // the refused offer left nothing behind

    for (const headers of [{}, { authorization: "Bearer wrong-token-wrong-token" }]) {
      expect((await post(`/api/instances/${id}/destroy`, headers)).status).toBe(401);
      expect((await post(`/api/instances/${id}/cordon`, headers)).status).toBe(401);
    }
    const record = await store.require(id);
    expect(record.state).toBe("booting");
    expect(await store.isMachineExcluded(record.machineId as number)).toBe(false);
    expect(d.fleet.fake.instances.has(record.vastId as number)).toBe(true);

    const cordoned = await post(`/api/instances/${id}/cordon`, auth);
    expect(cordoned).toMatchObject({ status: 200, json: { machineId: record.machineId } });
    expect(await store.isMachineExcluded(record.machineId as number)).toBe(true);
    const destroyed = await post(`/api/instances/${id}/destroy`, auth);
    expect(destroyed.status).toBe(200);
    expect((await store.require(id)).state).toBe("destroyed");
    expect(d.fleet.fake.instances.has(record.vastId as number)).toBe(false);
    expect((await post("/api/instances/i-ffffffff/destroy", auth)).status).toBe(404);
  });

  it("shows excluded machines with their evidence, and lifts one only with the admin token", async () => {
    d = await startDashboardFleet();
    const { manager, clock } = d.fleet;
    const record = await manager.deploy(1002);
    await manager.agent.register(record.id, { agentVersion: "0.1.0" });
    for (const phase of ["params", "warmup", "benchmarking"] as const)
      await manager.agent.phase(record.id, { phase });
    await manager.agent.report(record.id, { verdict: "UNSTABLE", proofsPerHour: 20, proofs: [] });
    const machines = async () =>
      JSON.parse((await get("/api/machines", auth)).text) as {
        exclusionPeriodMs: number;
        machines: { machineId: number; excluded: boolean; excludedUntil: number; evidence: unknown[] }[];
      };
    const before = await machines();
    expect(before.machines).toEqual([
      expect.objectContaining({
        machineId: 502,
        hostId: 92,
        rentals: 1,
        failures: 1,
        excluded: true,
        exclusionReason: expect.stringMatching(/unstable/),
        excludedUntil: clock.now() + before.exclusionPeriodMs,
        evidence: [expect.objectContaining({ kind: "unstable", instanceId: record.id, counts: true })],
      }),
    ]);
    for (const headers of [{}, { authorization: "Bearer wrong-token-wrong-token" }]) {
      expect((await post("/api/machines/502/lift", headers)).status).toBe(401);
    }
    expect(await manager.store.isMachineExcluded(502)).toBe(true);
    expect((await post("/api/machines/x/lift", auth)).status).toBe(400);
    const lifted = await post("/api/machines/502/lift", auth, { reason: "host replaced the PSU" });
    expect(lifted).toMatchObject({
      status: 200,
      json: { ok: true, machineId: 502, lifted: { reason: "lifted by the operator: host replaced the PSU" } },
    });
    expect(await manager.store.isMachineExcluded(502)).toBe(false);
    expect((await manager.store.events({ instanceId: "machine-502" })).map((e) => e.type)).toEqual([
      "machine-lifted",
    ]);
    expect((await machines()).machines[0]).toMatchObject({ excluded: false, failures: 1 });
    // Nothing left to lift: refused, and nothing written.
    expect(await post("/api/machines/502/lift", auth)).toMatchObject({
      status: 409,
      json: { error: "INVALID_INPUT" },
    });
    expect(await manager.store.machineEvidence({ machineId: 502 })).toHaveLength(2);
  });

  it("needs the admin token for every read when bound beyond loopback", async () => {
    d = await startDashboardFleet({ readsNeedToken: true });
    for (const path of [
      "/api/instances",
      "/api/summary",
      "/api/events",
      "/metrics",
      "/openapi.json",
      "/api/stream",
    ]) {
      expect((await get(path)).status, path).toBe(401);
    }
    expect((await get("/api/instances", auth)).status).toBe(200);
    // The page shell holds no data: it loads, and asks for the token.
    const page = await get("/");
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(page.headers.get("x-content-type-options")).toBe("nosniff");
  });

  it("needs the admin token for reads when nothing says the manager listens on loopback (the safe default)", async () => {
    d = await startDashboardFleet({ readsNeedToken: undefined });
    const refused = await get("/api/summary");
    expect(refused.status).toBe(401);
    expect(JSON.parse(refused.text)).toMatchObject({ ok: false, error: "ADMIN_TOKEN_REQUIRED" });
    expect((await get("/api/summary", auth)).status).toBe(200);
    // A wrong token opens nothing, reads or actions.
    const wrong = { authorization: `Bearer ${testAdminToken}x` };
    expect((await get("/api/summary", wrong)).status).toBe(401);
    expect((await post("/api/machines/502/lift", wrong)).status).toBe(401);
  });

  it("streams a change event when an agent reports a phase", async () => {
    d = await startDashboardFleet();
    const seeded = await seedDashboardFleet(d);
    const controller = new AbortController();
    const response = await fetch(`${d.url}/api/stream`, { signal: controller.signal });
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = "";
    const more = async () => {
      text += decoder.decode((await reader.read()).value, { stream: true });
    };
    while (!text.includes("event: hello")) await more();
    await d.agent(seeded.vetting.id, seeded.vetting.token, "phase", { phase: "benchmarking" });
    while (!text.includes("event: change")) await more();
    const data = text.split("event: change\ndata: ")[1]?.split("\n\n")[0] as string;
    expect(JSON.parse(data)).toEqual([
      expect.objectContaining({
        instanceId: seeded.vetting.id,
        fromState: "warmup",
        toState: "benchmarking",
      }),
    ]);
    controller.abort();
  });

  it("says its tick interval at hello, and each tick carries when the manager's loops last passed", async () => {
    d = await startDashboardFleet({ streamTickMs: 50 });
    const stopLoops = d.fleet.manager.startLoops({ monitorEveryMs: 20, reconcileEveryMs: 3_600_000 });
    const controller = new AbortController();
    try {
      const response = await fetch(`${d.url}/api/stream`, { signal: controller.signal });
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      const decoder = new TextDecoder();
      let text = "";
      const ticks = () =>
        text
          .split("event: tick\ndata: ")
          .slice(1)
          .map((chunk) => JSON.parse(chunk.split("\n\n")[0] as string) as Record<string, unknown>);
      // Until a tick reports a pass (the first ticks may come before the monitor's first pass).
      while (!ticks().some((t) => t.lastPassAt !== null))
        text += decoder.decode((await reader.read()).value, { stream: true });
      expect(JSON.parse(text.split("event: hello\ndata: ")[1]?.split("\n\n")[0] as string)).toMatchObject({
        tickMs: 50,
      });
      const passed = ticks().find((t) => t.lastPassAt !== null);
      expect(passed).toMatchObject({ lastPass: "monitor", monitorEveryMs: 20, now: d.fleet.clock.now() });
      expect(passed?.lastPassAt).toBe(d.fleet.clock.now());
    } finally {
      controller.abort();
      await stopLoops();
    }
    expect(d.fleet.manager.loopState().monitorEveryMs).toBeUndefined();
  });

  // A browser left open on the dashboard must not hold `fleet serve` up when it stops: the
  // server ends its event streams before it waits for in-flight requests, not after.
  it("ends an open event stream when the server closes, and the close completes", async () => {
    const fleet = await startDashboardFleet();
    const response = await fetch(`${fleet.url}/api/stream`);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = "";
    while (!text.includes("event: hello"))
      text += decoder.decode((await reader.read()).value, { stream: true });
    const closed = fleet.close();
    // The stream ends (done) instead of staying open until the client gives up.
    for (;;) if ((await reader.read()).done) break;
    await closed;
  });
});

describe("/api/spend", () => {
  it("is the billing instances' $/h over time and that over the fleet's proofs/hour", async () => {
    d = await startDashboardFleet();
    const seeded = await seedDashboardFleet(d);
    const store = d.fleet.manager.store;
    type Spend = { times: number[]; dollarsPerHour: number[]; dollarsPer1000Proofs: (number | null)[] };
    const spend = async () => JSON.parse((await get("/api/spend")).text) as Spend;
    const before = await spend();
    const kept = await store.require(seeded.kept);
    const vetting = await store.require(seeded.vetting.id);
    // Now: both rentals bill (the planned one does not), and the kept one proves 48.5/h.
    expect(before.times.at(-1)).toBe(d.fleet.clock.now() / 1000);
    expect(before.dollarsPerHour.at(-1)).toBeCloseTo(kept.dphPerHour + vetting.dphPerHour, 9);
    expect(before.dollarsPer1000Proofs.at(-1)).toBeCloseTo(
      ((kept.dphPerHour + vetting.dphPerHour) / 48.5) * 1000,
      9,
    );
    // Before the first benchmark the fleet proved nothing: no $ per 1000 proofs, but spend.
    expect(before.dollarsPer1000Proofs[0]).toBeNull();
    expect(before.dollarsPerHour[0]).toBeCloseTo(kept.dphPerHour, 9);

    d.fleet.clock.advance(60_000);
    await d.fleet.manager.destroy(seeded.vetting.id);
    d.fleet.clock.advance(60_000);
    const after = await spend();
    expect(after.dollarsPerHour.at(-1)).toBeCloseTo(kept.dphPerHour, 9);
    expect(after.dollarsPer1000Proofs.at(-1)).toBeCloseTo((kept.dphPerHour / 48.5) * 1000, 9);
  });
});

describe("the page's assets", () => {
  it("are versioned, cached for a year under their version, revalidated otherwise, and compressed", async () => {
    d = await startDashboardFleet();
    await seedDashboardFleet(d);
    const page = await (await fetch(`${d.url}/`)).text();
    const version = /dashboard\.js\?v=([0-9a-f]{16})/.exec(page)?.[1];
    expect(version).toBeDefined();
    expect(page).toContain(`/assets/dashboard.css?v=${version}`);

    const versioned = await fetch(`${d.url}/assets/dashboard.js?v=${version}`, {
      headers: { "accept-encoding": "gzip" },
    });
    expect(versioned.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(versioned.headers.get("content-encoding")).toBe("gzip");
    // The page's security headers are still there.
    expect(versioned.headers.get("content-security-policy")).toContain("script-src 'self'");
    const body = await versioned.text();
    expect(body).toContain("uplot");

    const bare = await fetch(`${d.url}/assets/dashboard.js`);
    expect(bare.headers.get("cache-control")).toBe("no-cache");
    const etag = bare.headers.get("etag") as string;
    expect(etag).toBe(`"${version}"`);
    await bare.body?.cancel();
    const again = await fetch(`${d.url}/assets/dashboard.js`, { headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);

    // JSON answers are compressed too; data is never cacheable.
    const api = await fetch(`${d.url}/api/instances`, { headers: { "accept-encoding": "gzip" } });
    expect(api.headers.get("content-encoding")).toBe("gzip");
    expect(api.headers.get("cache-control")).toBe("no-store");
    expect(JSON.parse(await api.text()).instances.length).toBeGreaterThan(0);
  });
});

describe("/metrics", () => {
  it("exposes instances by state, proofs/hour, $/h, heartbeat age and deadline slack", async () => {
    d = await startDashboardFleet();
    const seeded = await seedDashboardFleet(d);
    const metrics = await get("/metrics");
    expect(metrics.headers.get("content-type")).toContain("text/plain");
    const text = metrics.text;
    expect(text).toContain('cuzkit_fleet_instances{state="active"} 1');
    expect(text).toContain('cuzkit_fleet_instances{state="warmup"} 1');
    expect(text).toContain('cuzkit_fleet_instances{state="planned"} 1');
    expect(text).toContain(
      `cuzkit_fleet_instance_proofs_per_hour{instance_id="${seeded.kept}",state="active",basis="benchmark"} 48.5`,
    );
    expect(text).toContain("cuzkit_fleet_counted_proofs_per_hour 48.5");
    const dph = (await d.fleet.manager.store.list())
      .filter((r) => r.state !== "planned")
      .reduce((s, r) => s + r.dphPerHour, 0);
    expect(text).toMatch(new RegExp(`cuzkit_fleet_dollars_per_hour ${dph.toFixed(3).replace(/0+$/, "")}`));
    // The kept instance's heartbeat came 30 s of manual clock ago.
    expect(text).toContain(`cuzkit_fleet_heartbeat_age_seconds{instance_id="${seeded.kept}"} 30`);
    const vetting = await d.fleet.manager.store.require(seeded.vetting.id);
    const slack = ((vetting.phaseDeadlineAt as number) - d.fleet.clock.now()) / 1000;
    expect(text).toContain(
      `cuzkit_fleet_phase_deadline_slack_seconds{instance_id="${seeded.vetting.id}",state="warmup"} ${slack}`,
    );
    // Labels are ids, never the operator-written Vast label.
    expect(text).not.toContain("<script>");
  });
});

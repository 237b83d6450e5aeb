import type { FastifyInstance } from "fastify";
import { timedProofRecords } from "../evidence/benchmark-claim.js";
import { performanceOf } from "../evidence/performance-row.js";
import type { FleetConfig } from "../manager/config.js";
import { createDaemonStatusBoard, type DaemonStatusBoard } from "../server/daemon-status-board.js";
import type { DashboardOptions } from "../server/dashboard-routes.js";
import { testOffer, testPlan } from "./fixtures.js";
import { startTestFleet, type TestFleet } from "./test-fleet.js";

/** A test fleet with the dashboard served on an ephemeral loopback port. */
export interface DashboardFleet {
  fleet: TestFleet;
  /** http://127.0.0.1:PORT */
  url: string;
  adminToken: string;
  board: DaemonStatusBoard;
  /** Rents an offer and returns the instance id and its agent token. */
  deploy(offerId?: number): Promise<{ id: string; token: string }>;
  /** POSTs to an agent endpoint with the instance's token; throws unless 200. */
  agent(id: string, token: string, path: string, body?: unknown): Promise<void>;
  close(): Promise<void>;
}

/** The admin token every dashboard test uses. */
export const testAdminToken = "test-admin-token-0123456789";

/** The daemon /status an agent forwards in the tests (the client's camelCased shape). */
export const sampleDaemonStatus = {
  uptimeSecs: 3600,
  memory: { totalBytes: 400 * 2 ** 30, usedBytes: 250 * 2 ** 30, availableBytes: 150 * 2 ** 30 },
  pipelines: [
    {
      jobId: "job-7",
      proofKind: "porep-c2",
      startedSecsAgo: 12,
      totalPartitions: 10,
      partitionsDone: 4,
      partitions: [
        { index: 0, state: "done" },
        { index: 1, state: "gpu" },
      ],
    },
  ],
  gpuWorkers: [{ workerId: 0, gpuOrdinal: 0, state: "proving", currentJob: "job-7", currentPartition: 1 }],
};

/** Starts a test fleet with the dashboard (reads open, as on loopback) listening on 127.0.0.1:0. */
export async function startDashboardFleet(
  options: Partial<Omit<DashboardOptions, "manager">> = {},
  /** Fleet config over the test's (minimum 40 proofs/h). */
  config: Partial<FleetConfig> = {},
): Promise<DashboardFleet> {
  const board = createDaemonStatusBoard();
  const fleet = await startTestFleet({
    config: { minProofsPerHour: 40, ...config },
    fake: { rateLimits: false },
    dashboard: {
      adminToken: testAdminToken,
      readsNeedToken: false,
      daemonStatus: board,
      streamPollMs: 50,
      ...options,
    },
  });
  const app: FastifyInstance = fleet.app;
  await app.listen({ host: "127.0.0.1", port: 0 });
  const address = app.server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  const url = `http://127.0.0.1:${port}`;
  const agent = async (id: string, token: string, path: string, body: unknown = {}) => {
    const response = await fetch(`${url}/v1/agent/${id}/${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    if (response.status !== 200)
      throw new Error(`${path} answered ${response.status}: ${await response.text()}`);
  };
  return {
    fleet,
    url,
    adminToken: testAdminToken,
    board,
    async deploy(offerId = 1002) {
      const record = await fleet.manager.deploy(offerId);
      return { id: record.id, token: fleet.tokenOf(record.id) };
    },
    agent,
    close: () => fleet.close(),
  };
}

/**
 * Seeds a fleet: one instance kept (benchmarked at 48.5 proofs/h, with per-proof records and a
 * forwarded daemon /status, and Curio's PoRep rate), one in warmup, and one planned row whose label is markup; then
 * lists the kept machine's offer again (1002) and a twin of its class (1005).
 */
export async function seedDashboardFleet(
  d: DashboardFleet,
): Promise<{ kept: string; vetting: { id: string; token: string }; hostile: string }> {
  const kept = await d.deploy(1002);
  await d.agent(kept.id, kept.token, "register", { agentVersion: "0.1.0" });
  for (const phase of ["params", "warmup", "benchmarking"]) {
    d.fleet.clock.advance(60_000);
    await d.agent(kept.id, kept.token, "phase", { phase });
  }
  d.fleet.clock.advance(600_000);
  await d.agent(kept.id, kept.token, "report", {
    verdict: "MET",
    proofsPerHour: 48.5,
    // A warmup and 12 timed proofs of 74 s each, one at a time: 48.6/h, so the claim of 48.5 stands.
    proofs: timedProofRecords({ count: 12, wallMs: 74_000 }),
    tunedConfig: "[daemon]\n",
  });
  await d.agent(kept.id, kept.token, "heartbeat", { daemonStatus: sampleDaemonStatus });
  // The kept machine is a Curio node: the manager's HarmonyDB sync has recorded its PoRep rate.
  const keptRecord = await d.fleet.manager.store.require(kept.id);
  await d.fleet.manager.store.performance.record({
    ...performanceOf(keptRecord, d.fleet.manager.config.dialect, {
      kind: "production",
      proofsPerHour: 41.2,
      windowMs: 3_600_000,
    }),
    predictedProofsPerHour: undefined,
    source: "curio",
    taskType: "PoRep",
    failures: 1,
    at: d.fleet.clock.now(),
  });
  const vetting = await d.deploy(1003);
  await d.agent(vetting.id, vetting.token, "register", { agentVersion: "0.1.0" });
  await d.agent(vetting.id, vetting.token, "phase", { phase: "params" });
  await d.agent(vetting.id, vetting.token, "phase", { phase: "warmup" });
  d.fleet.clock.advance(30_000);
  const hostile = "i-0badc0de";
  await d.fleet.manager.store.plan(
    testPlan(hostile, {
      label: `<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">`,
      offer: testOffer(),
    }),
  );
  // The market afterwards: the kept machine's offer is listed again (it has a free slot) and a
  // twin of its hardware class on another machine appears, so the offers overlay shows a
  // measured, a class-corrected and a predicted estimate.
  const keptOffer = d.fleet.fake.offers.find((o) => o.id === 1002) as Record<string, unknown>;
  keptOffer.rented = false;
  d.fleet.fake.offers.push({
    ...keptOffer,
    id: 1005,
    machine_id: 505,
    host_id: 95,
    geolocation: "Poland, PL",
  });
  return { kept: kept.id, vetting, hostile };
}

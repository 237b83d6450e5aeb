import { afterEach, describe, expect, it } from "vitest";
import { knowledgeFromStore } from "../economics/knowledge.js";
import { timedProofRecords } from "../evidence/benchmark-claim.js";
import { startTestFleet, type TestFleet } from "../test-support/test-fleet.js";

let fleet: TestFleet | undefined;
afterEach(async () => {
  await fleet?.close();
  fleet = undefined;
});

/** n honest timed proofs of 60 s each, one at a time (60 proofs/hour). */
const proofs = (n: number) => timedProofRecords({ count: n, wallMs: 60_000, warmup: false });

function post(t: TestFleet, id: string, path: string, token: string, body: unknown) {
  return t.app.inject({
    method: "POST",
    url: `/v1/agent/${id}/${path}`,
    headers: { authorization: `Bearer ${token}` },
    payload: body as Record<string, unknown>,
  });
}

async function benchmarked(t: TestFleet, offerId: number, verdict: string, proofsPerHour: number) {
  const record = await t.manager.deploy(offerId);
  const token = t.tokenOf(record.id);
  await post(t, record.id, "register", token, { agentVersion: "0.1.0" });
  for (const phase of ["params", "warmup", "benchmarking"])
    await post(t, record.id, "phase", token, { phase });
  const report = await post(t, record.id, "report", token, {
    verdict,
    proofsPerHour,
    proofs: proofs(12),
    tunedConfig: "[daemon]\nx = 1\n",
  });
  expect(report.statusCode).toBe(200);
  return { id: record.id, token, record: await t.manager.store.require(record.id) };
}

describe("host performance", () => {
  it("keeps every benchmark with its hardware, price, config and per-proof records, and production reports", async () => {
    fleet = await startTestFleet({ config: { minProofsPerHour: 40 }, fake: { rateLimits: false } });
    const { id, token, record } = await benchmarked(fleet, 1002, "MET", 48);
    const [bench] = await fleet.manager.store.performance.list();
    expect(bench).toMatchObject({
      kind: "benchmark",
      instanceId: id,
      verdict: "MET",
      proofsPerHour: 48,
      dphPerHour: record.dphPerHour,
      offerId: 1002,
      machineId: record.machineId,
      gpuName: record.offer.gpuName,
      numGpus: record.offer.numGpus,
      config: "[daemon]\nx = 1\n",
    });
    expect(bench?.records).toHaveLength(12);
    expect(bench?.predictedProofsPerHour).toBeGreaterThan(0);
    expect(bench?.classKey).toContain(`${record.offer.numGpus}x ${record.offer.gpuName}`);

    // 30 proofs in 30 minutes = 60 proofs/hour in production.
    const report = await post(fleet, id, "throughput", token, { proofs: 30, windowMs: 1_800_000 });
    expect(report.statusCode).toBe(200);
    const rows = await fleet.manager.store.performance.list({ machineId: record.machineId as number });
    expect(rows.map((r) => [r.kind, r.proofsPerHour])).toEqual([
      ["benchmark", 48],
      ["production", 60],
    ]);

    // The ranking now knows this machine, and its class is calibrated from both samples.
    const knowledge = await knowledgeFromStore(fleet.manager.store);
    expect(knowledge.machines.get(record.machineId as number)?.runsProofsPerHour).toEqual([48, 60]);
    expect(knowledge.calibration.get(bench?.classKey as string)?.samples).toBe(2);
  });

  it("refuses production reports from a machine that is not active, and bad bodies, changing nothing", async () => {
    fleet = await startTestFleet({ config: { minProofsPerHour: 40 }, fake: { rateLimits: false } });
    const { id, token, record } = await benchmarked(fleet, 1002, "BELOW", 30);
    expect((await post(fleet, id, "throughput", token, { proofs: 3, windowMs: 600_000 })).statusCode).toBe(
      409,
    );
    const kept = await benchmarked(fleet, 1003, "MET", 50);
    expect(
      (await post(fleet, kept.id, "throughput", kept.token, { proofs: 3, windowMs: 10 })).statusCode,
    ).toBe(400);
    expect(
      (await post(fleet, kept.id, "throughput", token, { proofs: 3, windowMs: 600_000 })).statusCode,
    ).toBe(403);
    expect((await fleet.manager.store.performance.list()).map((r) => r.kind)).toEqual([
      "benchmark",
      "benchmark",
    ]);
    // The machine measured below the minimum is never ranked again.
    const ranked = await fleet.manager.rank();
    expect(ranked.some((r) => r.offer.machineId === record.machineId)).toBe(false);
  });
});

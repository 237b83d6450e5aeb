import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defaultDaemonConfig } from "@cuzkit/core";
import { ProofKind } from "@cuzkit/proto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSyntheticC1 } from "./c1-wrapper.js";
import { defaultSimConfig } from "./options.js";
import { createPipelineModel } from "./pipeline-model.js";
import type { SimDaemon } from "./sim-daemon.js";
import { createTracker } from "./testing/track.js";

const track = createTracker();
let dir = "";
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "cuzkit-pce-"));
});
afterEach(async () => {
  await track.cleanup();
  await rm(dir, { recursive: true, force: true });
});

const porep = (requestId: string) => ({
  submit: {
    requestId,
    proofKind: ProofKind.POREP_SEAL_COMMIT,
    sectorSize: 34359738368n,
    vanillaProof: createSyntheticC1({ sectorNumber: 1 }),
  },
});

/** The synthesis time the model gives a PoRep (summed over its partitions), cold or warm, in scaled ms. */
function modelledSynthesisMs(daemon: SimDaemon, cold: boolean): number {
  const model = createPipelineModel(daemon.options.hardware, daemon.options.config);
  const { partitions, synthesisSec } = model.kinds.porep;
  return partitions * synthesisSec * (cold ? model.coldSynthesisFactor : 1) * 1000 * daemon.options.timeScale;
}

/** Proves one PoRep on `daemon` and returns its synthesis_ms as a number. */
async function synthesisMsOf(daemon: SimDaemon, requestId: string): Promise<number> {
  const { result } = await track.client(daemon.address).prove(porep(requestId));
  return Number(result?.synthesisMs);
}

describe("the PCE file in the param cache", () => {
  it("is written after the first cold proof, and a restarted partition-workers daemon starts warm from it", async () => {
    const daemon = await track.daemon({ paramCacheDir: dir, config: defaultSimConfig() });
    expect(daemon.stats().pceFilesLoaded).toEqual([]);
    const cold = await synthesisMsOf(daemon, "cold");
    expect(cold).toBeCloseTo(modelledSynthesisMs(daemon, true), 0);
    expect(await daemon.whenPceFileWritten("porep-32g")).toBe(join(dir, "pce-porep-32g.bin"));
    expect(await readdir(dir)).toEqual(["pce-porep-32g.bin"]);
    await daemon.restart();
    expect(daemon.stats().pceFilesLoaded).toEqual(["porep-32g"]);
    const warm = await synthesisMsOf(daemon, "warm");
    // Synthesis with the PCE loaded from the file: the model's warm time, 1.42x faster than cold.
    expect(warm).toBeCloseTo(modelledSynthesisMs(daemon, false), 0);
    expect(warm).toBeLessThan(cold);
  });

  it("is not read by the budget daemon, which re-extracts it at every start", async () => {
    const daemon = await track.daemon({
      paramCacheDir: dir,
      config: { ...defaultDaemonConfig("budget"), maxParallelSynthesis: 4 },
    });
    const first = await synthesisMsOf(daemon, "first");
    await daemon.whenPceFileWritten("porep-32g");
    await daemon.restart();
    expect(daemon.stats().pceFilesLoaded).toEqual([]);
    const again = await synthesisMsOf(daemon, "again");
    expect(first).toBeCloseTo(modelledSynthesisMs(daemon, true), 0);
    expect(again).toBe(first);
  });

  it("wait rejects with SIM_STOPPED when the daemon stops before writing the file", async () => {
    const daemon = await track.daemon({ paramCacheDir: dir });
    const waiting = daemon.whenPceFileWritten("porep-32g");
    await daemon.stop();
    await expect(waiting).rejects.toMatchObject({ code: "SIM_STOPPED" });
    expect(await readdir(dir)).toEqual([]);
  });
});

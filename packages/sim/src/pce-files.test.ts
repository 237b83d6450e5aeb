import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defaultDaemonConfig } from "@cuzkit/core";
import { ProofKind } from "@cuzkit/proto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSyntheticC1 } from "./c1-wrapper.js";
import { defaultSimConfig } from "./options.js";
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

/** Resolves once the daemon has written its PCE file (polled: the write happens on its own timer). */
async function pceFileWritten(): Promise<string[]> {
  for (;;) {
    const names = await readdir(dir).catch(() => [] as string[]);
    if (names.some((name) => name.endsWith(".bin"))) return names;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe("the PCE file in the param cache", () => {
  it("is written after the first cold proof, and a restarted partition-workers daemon starts warm from it", async () => {
    // Time scale 0.005 (proofs of about a second): at 0.0005 event-loop jitter on a busy machine ate the 1.42x.
    const daemon = await track.daemon({ paramCacheDir: dir, timeScale: 0.005, config: defaultSimConfig() });
    const cold = (await track.client(daemon.address).prove(porep("cold"))).result;
    expect(await pceFileWritten()).toEqual(["pce-porep-32g.bin"]);
    await daemon.restart();
    const warm = (await track.client(daemon.address).prove(porep("warm"))).result;
    // Synthesis without a PCE is 1.42x slower (the model's cold factor).
    expect(Number(warm?.synthesisMs)).toBeLessThan(Number(cold?.synthesisMs) / 1.2);
  });

  it("is not read by the budget daemon, which re-extracts it at every start", async () => {
    const daemon = await track.daemon({
      paramCacheDir: dir,
      timeScale: 0.005,
      config: { ...defaultDaemonConfig("budget"), maxParallelSynthesis: 4 },
    });
    const first = (await track.client(daemon.address).prove(porep("first"))).result;
    await pceFileWritten();
    await daemon.restart();
    const again = (await track.client(daemon.address).prove(porep("again"))).result;
    expect(Number(again?.synthesisMs)).toBeGreaterThan(Number(first?.synthesisMs) * 0.85);
  });
});

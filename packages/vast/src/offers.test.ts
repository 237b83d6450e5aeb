import { MiB } from "@cuzkit/core";
import { describe, expect, it } from "vitest";
import { normaliseOffer, offerHardware } from "./offers.js";
import { sampleOffers } from "./testing/sample-offers.js";

describe("normaliseOffer", () => {
  it("converts MiB memory and GB disk to bytes and keeps the raw record", () => {
    const raw = sampleOffers()[0]!;
    const offer = normaliseOffer(raw)!;
    expect(offer).toMatchObject({
      id: 1001,
      gpuName: "RTX 4090",
      numGpus: 2,
      gpuRamBytes: 24_564 * MiB,
      gpuTotalRamBytes: 49_128 * MiB,
      cpuRamBytes: 257_000 * MiB,
      diskSpaceBytes: 500_000_000_000,
      dphTotal: 0.85,
      reliability: 0.995,
      cpuCoresEffective: 32,
      verification: "verified",
    });
    expect(offer.raw).toBe(raw);
  });

  it("computes total VRAM when gpu_total_ram is absent and accepts numeric strings", () => {
    const offer = normaliseOffer({
      id: "9",
      gpu_name: "A40",
      num_gpus: 2,
      gpu_ram: 46068,
      cpu_ram: 1000,
      dph_total: "1.1",
    })!;
    expect(offer.id).toBe(9);
    expect(offer.gpuTotalRamBytes).toBe(92_136 * MiB);
    expect(offer.dphTotal).toBe(1.1);
  });

  it.each([
    null,
    [],
    { gpu_name: "A40", num_gpus: 1, gpu_ram: 1, cpu_ram: 1, dph_total: 1 },
    { id: 1, num_gpus: 1, gpu_ram: 1, cpu_ram: 1, dph_total: 1 },
    { id: 1, gpu_name: "A40", num_gpus: 1, gpu_ram: "lots", cpu_ram: 1, dph_total: 1 },
  ])("rejects a record without the fields we rely on %#", (record) => {
    expect(normaliseOffer(record)).toBeUndefined();
  });
});

describe("offerHardware", () => {
  it("scales usable RAM by gpu_frac and takes threads from cpu_cores_effective", () => {
    const hw = offerHardware(normaliseOffer(sampleOffers()[0])!);
    expect(hw).toEqual({
      ramBytes: 257_000 * MiB,
      usableRamBytes: 128_500 * MiB,
      cpuThreads: 32,
      hostCpuThreads: 64,
      gpus: [
        { model: "RTX 4090", vramBytes: 24_564 * MiB },
        { model: "RTX 4090", vramBytes: 24_564 * MiB },
      ],
    });
  });

  it("uses all RAM for a whole machine and cpu_cores when effective cores are missing", () => {
    const offer = normaliseOffer({
      id: 1,
      gpu_name: "RTX 3090",
      num_gpus: 1,
      gpu_frac: 1,
      gpu_ram: 24576,
      cpu_ram: 251_000,
      cpu_cores: 32,
      dph_total: 0.3,
    })!;
    const hw = offerHardware(offer);
    expect(hw.usableRamBytes).toBe(hw.ramBytes);
    expect(hw.cpuThreads).toBe(32);
    expect(hw.gpus).toHaveLength(1);
  });

  it("rounds fractional effective cores down, to at least one", () => {
    const offer = normaliseOffer({
      id: 1,
      gpu_name: "RTX 3090",
      num_gpus: 1,
      gpu_ram: 24576,
      cpu_ram: 1000,
      cpu_cores: 32,
      cpu_cores_effective: 0.5,
      dph_total: 0.3,
    })!;
    expect(offerHardware(offer).cpuThreads).toBe(1);
    expect(offerHardware({ ...offer, cpuCoresEffective: 7.9 }).cpuThreads).toBe(7);
  });
});

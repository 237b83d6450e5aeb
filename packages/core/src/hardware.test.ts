import { describe, expect, it } from "vitest";
import { GiB } from "./bytes.js";
import { InvalidInputError } from "./errors.js";
import { describeHardware, hardwareFrom, parseGpuList } from "./hardware.js";
import { findGpuModel } from "./model/gpu-catalog.js";

describe("parseGpuList", () => {
  it("reads counts, models and optional VRAM", () => {
    expect(parseGpuList("2xRTX3090")).toEqual([
      { model: "RTX 3090", vramBytes: 24e9 },
      { model: "RTX 3090", vramBytes: 24e9 },
    ]);
    expect(parseGpuList("2xA40:48GiB")).toEqual([
      { model: "A40", vramBytes: 48 * GiB },
      { model: "A40", vramBytes: 48 * GiB },
    ]);
    expect(parseGpuList("1xRTX 5070 Ti,1x RTX_4090").map((g) => g.model)).toEqual([
      "RTX 5070 Ti",
      "RTX 4090",
    ]);
    expect(parseGpuList("none")).toEqual([]);
    expect(parseGpuList("2xMysteryCard:12GiB")).toEqual([
      { model: "MysteryCard", vramBytes: 12 * GiB },
      { model: "MysteryCard", vramBytes: 12 * GiB },
    ]);
  });

  it("rejects what it cannot read, saying how to write it", () => {
    expect(() => parseGpuList("0xRTX3090")).toThrow(InvalidInputError);
    expect(() => parseGpuList("2xMysteryCard")).toThrow(/no VRAM given/);
    try {
      parseGpuList("2xMysteryCard");
    } catch (error) {
      expect((error as InvalidInputError).hint).toBe('add the VRAM, such as "2xMysteryCard:24GiB"');
    }
    expect(() => parseGpuList("2xA40:lots")).toThrow(InvalidInputError);
  });
});

describe("findGpuModel", () => {
  it("matches names as nvidia-smi and Vast.ai write them", () => {
    expect(findGpuModel("NVIDIA GeForce RTX 3090")?.name).toBe("RTX 3090");
    expect(findGpuModel("NVIDIA H200")?.name).toBe("H200");
    expect(findGpuModel("H100 PCIe")?.name).toBe("H100 PCIe");
    expect(findGpuModel("NVIDIA H100 80GB HBM3")?.name).toBe("H100");
    expect(findGpuModel("RTX 5070 Ti")?.name).toBe("RTX 5070 Ti");
    expect(findGpuModel("NVIDIA RTX A6000")?.name).toBe("RTX A6000");
    expect(findGpuModel("Radeon")).toBeUndefined();
  });
});

describe("hardwareFrom", () => {
  it("applies a container limit to usable RAM only", () => {
    const hw = hardwareFrom({ ram: "2TiB", cores: 32, gpus: "2xA40", memoryLimit: "251GiB" });
    expect(hw.ramBytes).toBe(2048 * GiB);
    expect(hw.usableRamBytes).toBe(251 * GiB);
    expect(describeHardware(hw)).toBe("2.0 TiB RAM (usable 251.0 GiB), 32 CPU threads, 2x A40");
  });

  it("rejects nonsense", () => {
    expect(() => hardwareFrom({ ram: "256GiB", cores: 0 })).toThrow(InvalidInputError);
    expect(() => hardwareFrom({ ram: "0", cores: 4 })).toThrow(InvalidInputError);
  });
});

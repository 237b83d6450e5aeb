import { hardwareFrom, incidentDaemonConfig, modelDaemon } from "@cuzkit/core";
import { describe, expect, it } from "vitest";
import { defaultSimConfig, defaultSimHardware, resolveSimOptions } from "./options.js";

describe("resolveSimOptions", () => {
  it("fills the documented defaults", () => {
    const resolved = resolveSimOptions();
    expect(resolved.listen).toEqual({ kind: "tcp", host: "127.0.0.1", port: 0, family: 4 });
    expect(resolved.statusListen).toBeUndefined();
    expect(resolved.timeScale).toBe(0.001);
    expect(resolved.proofTimeMs).toBeUndefined();
    expect(resolved.pceCached).toBe(false);
    expect(resolved.hardware.gpus.map((gpu) => gpu.model)).toEqual(["RTX 3090", "RTX 3090"]);
    expect(resolved.config).toMatchObject({
      dialect: "partition-workers",
      partitionWorkers: 4,
      gpuWorkersPerDevice: 1,
    });
    expect(resolved.faults).toMatchObject({ startDelayMs: 0, failNextProofs: { count: 0 } });
  });

  it("defaults to a config the model calls safe on the default machine, unlike the incident config", () => {
    const workload = { kind: "porep" as const, concurrency: 2 };
    expect(modelDaemon(defaultSimHardware(), defaultSimConfig(), workload).oom).toBe(false);
    expect(modelDaemon(defaultSimHardware(), incidentDaemonConfig(), workload).oom).toBe(true);
  });

  it.each([
    [{ timeScale: 0 }, /timeScale/],
    [{ timeScale: Number.NaN }, /timeScale/],
    [{ proofTimeMs: -1 }, /proofTimeMs/],
    [{ proofTimeJitter: 1 }, /proofTimeJitter/],
    [{ listen: "localhost:1" }, /invalid listen address/],
    [{ statusListen: "unix:///tmp/s.sock" }, /TCP only/],
    [{ hardware: hardwareFrom({ ram: "64GiB", cores: 8 }) }, /no GPU/],
    [{ faults: { crashAfterProofs: 0 } }, /crashAfterProofs/],
    [{ faults: { stallAfterProofs: 1.5 } }, /stallAfterProofs/],
    [{ faults: { stickAfterProofs: -1 } }, /stickAfterProofs/],
    [{ faults: { holdAfterProofs: 0 } }, /holdAfterProofs/],
    [{ faults: { startDelayMs: -5 } }, /startDelayMs/],
    [{ faults: { failNextProofs: { count: -1 } } }, /failNextProofs/],
  ])("refuses %o", (options, message) => {
    expect(() => resolveSimOptions(options)).toThrow(message);
  });
});

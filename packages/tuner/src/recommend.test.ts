import {
  defaultDaemonConfig,
  GiB,
  hardwareFrom,
  modelDaemon,
  readCuzkConfig,
  toCuzkSize,
} from "@cuzkit/core";
import { describe, expect, it } from "vitest";
import { checkConfig } from "./check.js";
import { emitText } from "./emit/text.js";
import { emitCuzkToml } from "./emit/toml.js";
import { UnsafeConfigError } from "./errors.js";
import { recommend } from "./recommend.js";
import { allowedPeak, modelledPeak, workloadOf } from "./test-support.js";

// The calibration points of docs/daemon-facts.md section 4 and the incidents of
// docs/incidents.md: every recommendation is safe under the model, and the settings the incidents
// ran are flagged by checkConfig.

const dialects = ["budget", "partition-workers"] as const;

function expectSafe(hw: ReturnType<typeof hardwareFrom>, rec: ReturnType<typeof recommend>) {
  const { peak, stalled } = modelledPeak(hw, rec.daemonConfig, workloadOf("porep", rec.bench.concurrency));
  expect(stalled).toBe(false);
  expect(peak).toBeLessThanOrEqual(allowedPeak(hw));
  expect(rec.predicted.peakMemoryBytes + rec.predicted.safetyMarginBytes).toBeLessThanOrEqual(
    hw.usableRamBytes,
  );
  expect(rec.warmup.peakMemoryBytes).toBeLessThanOrEqual(allowedPeak(hw));
}

describe("calibration points: 192 threads, 1x RTX 5070 Ti", () => {
  // Measured (older partition_workers daemon): 128 GiB pw=2 gw=1, 256 pw=7 gw=1, 384 pw=10 gw=2, 512 pw=12 gw=2.
  const measured = { 128: [2, 1], 256: [7, 1], 384: [10, 2], 512: [12, 2] } as const;

  for (const ram of [128, 256, 384, 512] as const) {
    const hw = hardwareFrom({ ram: `${ram}GiB`, cores: 192, gpus: "1xRTX5070Ti" });

    it(`${ram} GiB: the partition-workers recommendation is safe and at least as fast as the measured setting`, () => {
      const rec = recommend(hw, { dialect: "partition-workers" });
      expect(rec.feasible).toBe(true);
      expectSafe(hw, rec);
      const [pw, gw] = measured[ram];
      const config = {
        ...defaultDaemonConfig("partition-workers"),
        partitionWorkers: pw,
        gpuWorkersPerDevice: gw,
      };
      // The measured setting at the concurrencies that fit the same margin.
      for (let c = 1; c <= 8; c++) {
        const m = modelledPeak(hw, config, workloadOf("porep", c));
        if (m.peak <= allowedPeak(hw))
          expect(rec.predicted.proofsPerHour).toBeGreaterThanOrEqual(m.proofsPerHour - 1e-9);
      }
    });

    it(`${ram} GiB: the budget recommendation is safe, or infeasible with a reason`, () => {
      const rec = recommend(hw);
      expect(rec.dialect).toBe("budget");
      if (rec.feasible) {
        expectSafe(hw, rec);
        expect(rec.config.memory?.total_budget).toBe(toCuzkSize(rec.daemonConfig.totalBudgetBytes as number));
        expect(rec.config.pipeline?.max_parallel_synthesis).toBe(rec.daemonConfig.maxParallelSynthesis);
      } else {
        expect(ram).toBe(128);
        expect(rec.infeasibleReason).toMatch(/cold-start/);
        // ...and it points at the partition-workers daemon, which fits with a warmup restart.
        expect(rec.infeasibleReason).toMatch(/partition-workers daemon would fit/);
        expect(() => emitCuzkToml(rec)).toThrow(UnsafeConfigError);
      }
    });
  }

  it("the current daemon's defaults (empty cuzk.toml, auto budget) at concurrency 6 are flagged up to 512 GiB", () => {
    // Its auto budget runs 8 / 12 / 18 / 18 partitions at 128 / 256 / 384 / 512 GiB; the
    // measured envelope peaks at 510 GiB with 16.
    for (const ram of [128, 256, 384, 512]) {
      const hw = hardwareFrom({ ram: `${ram}GiB`, cores: 192, gpus: "1xRTX5070Ti" });
      const result = checkConfig(hw, "", { concurrency: 6 });
      expect(result.dialect).toBe("budget");
      expect(result.exitCode).toBe(2);
      expect(result.oom).toBe(true);
      expect(result.oomPhase).toBe("cold-start");
      expect(result.problems.join("\n")).toMatch(/OOM expected in cold-start/);
    }
    const big = checkConfig(hardwareFrom({ ram: "768GiB", cores: 192, gpus: "1xRTX5070Ti" }), "", {
      concurrency: 6,
    });
    expect(big.oom).toBe(false);
    expect(big.exitCode).toBe(0);
  });
});

describe("incidents", () => {
  it("256 GB, partition_workers=16, 2 GPU workers, 32 GPU threads, concurrency 6: flagged; the recommendation is safe", () => {
    const hw = hardwareFrom({ ram: "256GiB", cores: 64, gpus: "2xRTX4090" });
    const toml =
      "[synthesis]\npartition_workers = 16\n\n[gpus]\ngpu_workers_per_device = 2\ngpu_threads = 32\n";
    const result = checkConfig(hw, toml, { concurrency: 6, dialect: "partition-workers" });
    expect(result.dialect).toBe("partition-workers");
    expect(result.exitCode).toBe(2);
    expect(result.oomPhase).toBe("steady");
    expect(result.peakBytes).toBeGreaterThan(hw.usableRamBytes);
    expect(result.changes.some((c) => c.key === "synthesis.partition_workers" && c.current === 16)).toBe(
      true,
    );
    for (const dialect of dialects) {
      const rec = recommend(hw, { dialect });
      expect(rec.feasible).toBe(true);
      expectSafe(hw, rec);
    }
    // Even when the operator insists on concurrency 6, the tuned config fits.
    const at6 = recommend(hw, { dialect: "partition-workers", concurrency: 6 });
    expect(at6.bench.concurrency).toBe(6);
    expectSafe(hw, at6);
  });

  it("125 GB, first cache-less proof with partition_workers=16: the warmup is flagged; the tuned warmup fits", () => {
    const hw = hardwareFrom({ ram: "125GB", cores: 32, gpus: "2xRTX3090" });
    const result = checkConfig(hw, "[synthesis]\npartition_workers = 16\n", {
      concurrency: 1,
      dialect: "partition-workers",
    });
    expect(result.exitCode).toBe(2);
    const warmup = result.phases.find((p) => p.phase === "warmup");
    expect(warmup?.oom).toBe(true);
    expect(result.problems.join("\n")).toMatch(/OOM expected in warmup/);

    const rec = recommend(hw, { dialect: "partition-workers" });
    expect(rec.feasible).toBe(true);
    expectSafe(hw, rec);
    expect(rec.warmup.restart).toBe(true);
    expect(rec.warmup.concurrency).toBe(1);
    // The budget daemon re-extracts its PCE at every start and runs at least 2 workers: no fit.
    const budget = recommend(hw, { dialect: "budget" });
    expect(budget.feasible).toBe(false);
    expect(budget.infeasibleReason).toMatch(/at least 2 synthesis workers/);
  });

  it("251 GB, 2x RTX 3090, partition_workers=10, concurrency 2: flagged; the recommendation is safe", () => {
    const hw = hardwareFrom({ ram: "251GB", cores: 32, gpus: "2xRTX3090" });
    const result = checkConfig(hw, "[synthesis]\npartition_workers = 10\n", {
      concurrency: 2,
      dialect: "partition-workers",
    });
    expect(result.exitCode).toBe(2);
    expect(result.oom).toBe(true);
    expect(result.oomPhase).toBe("steady");
    for (const dialect of dialects) {
      const rec = recommend(hw, { dialect });
      expect(rec.feasible).toBe(true);
      expectSafe(hw, rec);
    }
  });

  it("2x RTX 3090 with 56 GB RAM: infeasible, with the reason and a typed refusal", () => {
    const hw = hardwareFrom({ ram: "56GB", cores: 32, gpus: "2xRTX3090" });
    for (const dialect of dialects) {
      const rec = recommend(hw, { dialect });
      expect(rec.feasible).toBe(false);
      expect(rec.infeasibleReason).toMatch(/usable RAM below the minimum for PoRep/);
      expect(rec.warnings.map((w) => w.code)).toEqual(
        expect.arrayContaining(["BELOW_MINIMUM", "INFEASIBLE"]),
      );
      try {
        emitCuzkToml(rec);
        expect.unreachable();
      } catch (error) {
        expect(error).toBeInstanceOf(UnsafeConfigError);
        const unsafe = error as UnsafeConfigError;
        expect(unsafe.code).toBe("UNSAFE_CONFIG");
        expect(unsafe.peakBytes).toBeGreaterThan(unsafe.usableRamBytes);
        expect(unsafe.hint).toMatch(/force: true writes nothing/);
      }
      // Nothing fits even with the margin waived: force refuses too.
      expect(rec.forceable).toBe(false);
      expect(() => emitCuzkToml(rec, { force: true })).toThrow(
        /nothing fits this machine even with the safety margin waived|no safe config/,
      );
    }
  });

  it("names one minimum per answer: the usable RAM the smallest config needs", () => {
    const hw = hardwareFrom({ ram: "56GB", cores: 32, gpus: "2xRTX3090" });
    const rec = recommend(hw, { dialect: "partition-workers" });
    const reason = rec.infeasibleReason ?? "";
    expect(reason.match(/at least [\d.]+ GiB/g)).toHaveLength(1);
    // pw1, one proof + 2 PoSt slots: the envelope's 104 GiB, plus the margin: 116 GiB usable.
    expect(reason).toMatch(/needs at least 116\.0 GiB usable/);
    expect(reason).toMatch(/peaks at 104\.0 GiB/);
  });

  it("--force writes a config only when one fits the usable RAM with the margin waived", () => {
    // The budget daemon on 128 GiB: 2 workers + the cold start's 14 GiB = 123 GiB > 115.2 allowed, < 128 usable.
    const hw = hardwareFrom({ ram: "128GiB", cores: 192, gpus: "1xRTX5070Ti" });
    const rec = recommend(hw, { dialect: "budget" });
    expect(rec.feasible).toBe(false);
    expect(rec.forceable).toBe(true);
    expect(() => emitCuzkToml(rec)).toThrow(UnsafeConfigError);
    const forced = emitCuzkToml(rec, { force: true });
    expect(forced).toMatch(/^# FORCED: no config fits with the 12\.8 GiB safety margin; this one waives it/);
    const read = readCuzkConfig(forced, "budget");
    expect(read.findings).toEqual([]);
    expect(read.config.totalBudgetBytes).toBe(128 * GiB);
    expect(read.config.maxParallelSynthesis).toBe(2);
    const { peak } = modelledPeak(hw, read.config, workloadOf("porep", rec.bench.concurrency));
    expect(peak).toBeLessThanOrEqual(hw.usableRamBytes);
  });
});

describe("recommend", () => {
  const vast = hardwareFrom({ ram: "2TiB", memoryLimit: "251GiB", cores: 32, gpus: "2xRTX3090" });

  it("sizes a container from its limit, never from the host, and sets threads explicitly", () => {
    const container = { ...vast, hostCpuThreads: 384 };
    const rec = recommend(container);
    expect(rec.feasible).toBe(true);
    expect(rec.daemonConfig.totalBudgetBytes).toBeLessThanOrEqual(251 * GiB * 0.9);
    expect(rec.config.memory?.total_budget).toBe("225GiB");
    expect(rec.config.synthesis?.threads).toBe(32);
    expect(rec.config.gpus?.gpu_threads).toBe(32);
    expect(rec.warnings.map((w) => w.code)).toEqual(expect.arrayContaining(["CONTAINER_LIMIT", "CPU_QUOTA"]));
    // Bare metal: all CPUs (0) is what the daemon does by itself.
    expect(
      recommend(hardwareFrom({ ram: "512GiB", cores: 192, gpus: "1xRTX5070Ti" })).config.synthesis?.threads,
    ).toBe(0);
  });

  it("writes only keys the dialect reads, always batch size 1, and explains each", () => {
    const budget = recommend(vast);
    expect(budget.config.synthesis?.partition_workers).toBeUndefined();
    expect(budget.config.scheduler?.max_batch_size).toBe(1);
    const pw = recommend(vast, { dialect: "partition-workers" });
    expect(pw.config.memory).toBeUndefined();
    expect(pw.config.pipeline?.max_parallel_synthesis).toBeUndefined();
    expect(pw.config.synthesis?.partition_workers).toBe(pw.daemonConfig.partitionWorkers);
    for (const rec of [budget, pw]) {
      const abouts = rec.reasons.map((r) => r.about);
      for (const [section, keys] of Object.entries(rec.config))
        for (const key of Object.keys(keys)) expect(abouts).toContain(`${section}.${key}`);
      expect(abouts).toEqual(expect.arrayContaining(["bench.concurrency", "warmup", "predicted", "curio"]));
      expect(rec.reasons.find((r) => r.about === "scheduler.max_batch_size")?.text).toMatch(
        /136 GiB.*360 GiB/,
      );
      expect(rec.reasons.every((r) => /\d/.test(r.text))).toBe(true);
    }
    expect(readCuzkConfig(emitCuzkToml(pw)).looksWrittenFor).toBe("partition-workers");
  });

  it("the warmup of the partition-workers daemon runs one proof with at most one proof's partitions, then restarts", () => {
    const hw = hardwareFrom({ ram: "1TiB", cores: 256, gpus: "4xRTX4090" });
    const rec = recommend(hw, { dialect: "partition-workers" });
    expect(rec.daemonConfig.partitionWorkers).toBeGreaterThan(10);
    expect(rec.warmup.restart).toBe(true);
    expect(rec.warmup.synthesisParallelism).toBe(10);
    expect(rec.warmup.config.synthesis?.partition_workers).toBe(10);
    expect(rec.warmup.steps.join(" ")).toMatch(/Restart the daemon/);
    const budget = recommend(hw);
    expect(budget.warmup.restart).toBe(false);
    expect(budget.warmup.steps.join(" ")).toMatch(/Do not restart/);
  });

  it("counts the parameters of every resident kind for the mix workload", () => {
    const hw = hardwareFrom({ ram: "512GiB", cores: 128, gpus: "2xRTX4090" });
    const porep = recommend(hw, { workload: "porep" });
    const mix = recommend(hw, { workload: "mix" });
    expect(mix.workload.alsoResident).toEqual(["wpost", "winning", "snap"]);
    expect(mix.feasible).toBe(true);
    expect(
      mix.predicted.phasePeakBytes.steady - mix.predicted.synthesizingPartitions * 20 * GiB,
    ).toBeGreaterThan(
      porep.predicted.phasePeakBytes.steady - porep.predicted.synthesizingPartitions * 20 * GiB,
    );
    const model = modelDaemon(hw, mix.daemonConfig, workloadOf("mix", mix.bench.concurrency));
    expect(model.peakBytes).toBe(mix.predicted.peakMemoryBytes);
    for (const workload of ["snap", "wpost"] as const) {
      const rec = recommend(hw, { workload });
      expect(rec.feasible).toBe(true);
      expect(
        modelledPeak(hw, rec.daemonConfig, workloadOf(workload, rec.bench.concurrency)).peak,
      ).toBeLessThanOrEqual(allowedPeak(hw));
    }
  });

  it("honours the safety margin option and its floor", () => {
    const hw = hardwareFrom({ ram: "384GiB", cores: 192, gpus: "1xRTX5070Ti" });
    const loose = recommend(hw, { safetyMarginFraction: 0, minSafetyMarginBytes: 0 });
    const strict = recommend(hw, { safetyMarginFraction: 0.3 });
    expect(loose.predicted.safetyMarginBytes).toBe(0);
    expect(strict.predicted.safetyMarginBytes).toBe(Math.ceil(384 * GiB * 0.3));
    expect(strict.predicted.peakMemoryBytes).toBeLessThanOrEqual(384 * GiB * 0.7);
    expect(loose.predicted.proofsPerHour).toBeGreaterThanOrEqual(strict.predicted.proofsPerHour);
    const small = hardwareFrom({ ram: "20GiB", cores: 8 });
    expect(recommend(small).predicted.safetyMarginBytes).toBe(4 * GiB);
  });

  it("warns about GPUs: none, unknown model, low VRAM, mixed models", () => {
    const codes = (gpus: string) =>
      recommend(hardwareFrom({ ram: "512GiB", cores: 64, gpus })).warnings.map((w) => w.code);
    expect(codes("none")).toContain("NO_GPU");
    expect(codes("1xMystery9000:24GiB")).toContain("UNKNOWN_GPU");
    expect(codes("1xRTX3080")).toContain("LOW_VRAM");
    expect(codes("1xRTX3090,1xRTX4090")).toContain("MIXED_GPUS");
    expect(codes("2xRTX4090")).toEqual([]);
    const noGpu = recommend(hardwareFrom({ ram: "512GiB", cores: 64, gpus: "none" }));
    expect(noGpu.feasible).toBe(true);
    expect(noGpu.predicted.proofsPerHour).toBe(0);
    expect(noGpu.predicted.bottleneck).toBe("no-gpu");
  });

  it("rejects impossible input with InvalidInputError", () => {
    expect(() => recommend({ ...vast, usableRamBytes: 0 })).toThrow(/RAM/);
    expect(() => recommend({ ...vast, cpuThreads: 0 })).toThrow(/CPU thread/);
    expect(() => recommend(vast, { safetyMarginFraction: 1.5 })).toThrow(/fraction/);
    expect(() => recommend(vast, { workload: "nope" as "porep" })).toThrow(/unknown workload/);
    expect(() => recommend(vast, { dialect: "nope" as "budget" })).toThrow(/dialect/);
    expect(() => recommend(vast, { concurrency: 0 })).toThrow(/concurrency/);
  });
});

describe("the corrected law: partitions until memory binds", () => {
  it("251 GB, 48 threads, 2x RTX 3090: ~7 partitions (the old model gave 3), within the envelope", () => {
    const hw = hardwareFrom({ ram: "251GiB", cores: 48, gpus: "2xRTX3090" });
    for (const dialect of dialects) {
      const rec = recommend(hw, { dialect });
      expect(rec.predicted.synthesizingPartitions).toBe(7);
      expectSafe(hw, rec);
      expect(rec.predicted.bottleneck).toBe("synthesis");
    }
  });

  it("384 GiB, 192 threads: 10 partitions (the old model gave 13, measured ~430 GiB), peak within the measured 310 GiB + margin", () => {
    const hw = hardwareFrom({ ram: "384GiB", cores: 192, gpus: "1xRTX5070Ti" });
    const rec = recommend(hw, { dialect: "partition-workers" });
    expect(rec.predicted.synthesizingPartitions).toBe(10);
    expect(rec.predicted.peakMemoryBytes).toBeGreaterThanOrEqual(310 * GiB);
    expect(rec.predicted.peakMemoryBytes).toBeLessThanOrEqual(rec.predicted.allowedPeakBytes);
    // On the measured box within the measured range: nothing extrapolated.
    expect(rec.predicted.extrapolations).toEqual([]);
    expect(rec.reasons.find((r) => r.about === "extrapolated")?.text).toMatch(/^nothing/);
  });

  it("a container is sized by its limit, not by the host: 2 TiB host, 251 GiB limit, 32 of 384 threads", () => {
    const hw = {
      ...hardwareFrom({ ram: "2TiB", memoryLimit: "251GiB", cores: 32, gpus: "2xRTX3090" }),
      hostCpuThreads: 384,
    };
    const limited = recommend(hw);
    const bare = recommend(hardwareFrom({ ram: "251GiB", cores: 32, gpus: "2xRTX3090" }));
    expect(limited.predicted.synthesizingPartitions).toBe(bare.predicted.synthesizingPartitions);
    expect(limited.predicted.peakMemoryBytes).toBeLessThanOrEqual(251 * GiB * 0.9);
    expect(limited.config.synthesis?.threads).toBe(32);
  });

  it("marks what is extrapolated in the reasons: above 16 partitions, unmeasured GPUs, several GPUs", () => {
    const hw = hardwareFrom({ ram: "2TiB", cores: 256, gpus: "8xH100" });
    const rec = recommend(hw);
    expect(rec.predicted.synthesizingPartitions).toBeGreaterThan(16);
    const text = rec.reasons.find((r) => r.about === "extrapolated")?.text ?? "";
    expect(text).toMatch(/partitions at once: peak memory was measured up to 16/);
    expect(text).toMatch(/H100: no cuzk measurement/);
    expect(text).toMatch(/8 GPUs: measured with one/);
    expect(emitText(rec)).toMatch(/extrapolated: \d+ point\(s\)/);
  });

  it("takes a throughput calibration for the hardware class, and rejects a bad one", () => {
    const hw = hardwareFrom({ ram: "251GiB", cores: 48, gpus: "2xRTX3090" });
    const plain = recommend(hw);
    const calibrated = recommend(hw, {
      calibration: { proofsPerHourFactor: 0.8, samples: 3, source: "fleet: 2x RTX 3090" },
    });
    expect(calibrated.predicted.proofsPerHour).toBeCloseTo(plain.predicted.proofsPerHour * 0.8, 9);
    expect(calibrated.predicted.modelProofsPerHour).toBe(plain.predicted.proofsPerHour);
    expect(calibrated.predicted.secPerProof).toBeCloseTo(plain.predicted.secPerProof / 0.8, 9);
    expect(calibrated.predicted.calibration?.samples).toBe(3);
    // The same config: a factor for the class does not change which setting is fastest.
    expect(calibrated.config).toEqual(plain.config);
    expect(calibrated.reasons.find((r) => r.about === "predicted")?.text).toMatch(
      /Calibrated: x0\.80 from 3 benchmark run\(s\) \(fleet: 2x RTX 3090\)/,
    );
    expect(() => recommend(hw, { calibration: { proofsPerHourFactor: 0, samples: 3 } })).toThrow(/positive/);
    expect(() => recommend(hw, { calibration: { proofsPerHourFactor: 1.1, samples: 0 } })).toThrow(
      /1 sample/,
    );
  });

  it("refuses a listen address the daemon would refuse", () => {
    const hw = hardwareFrom({ ram: "251GiB", cores: 48, gpus: "2xRTX3090" });
    expect(() => recommend(hw, { listen: "localhost:9820" })).toThrow(/does not resolve host names/);
    expect(recommend(hw, { listen: "127.0.0.1:9820" }).config.daemon?.listen).toBe("127.0.0.1:9820");
  });
});

import { type DaemonConfig, type HardwareSpec, hardwareFrom, modelDaemon } from "@cuzkit/core";
import { describe, expect, it } from "vitest";
import { defaultSimConfig, defaultSimHardware } from "./options.js";
import { createPipeline, type OomDetail, type PipelineJobSpec, type ProofOutcome } from "./pipeline.js";
import { createPipelineModel } from "./pipeline-model.js";
import { createManualScheduler } from "./scheduler.js";

// Time scale 1 and a manual scheduler: modelled seconds are exact milliseconds x 1000, and
// nothing waits for real.

interface Setup {
  hardware?: HardwareSpec;
  config?: DaemonConfig;
  pceCached?: boolean;
}

function setup({
  hardware = defaultSimHardware(),
  config = defaultSimConfig(),
  pceCached = false,
}: Setup = {}) {
  const scheduler = createManualScheduler();
  const model = createPipelineModel(hardware, config);
  const memory: number[] = [];
  const ooms: OomDetail[] = [];
  const pipeline = createPipeline({
    model,
    scheduler,
    timeScale: 1,
    pceCached: () => pceCached,
    usableRamBytes: hardware.usableRamBytes,
    gpuCount: hardware.gpus.length,
    dispatchConcurrency: config.synthesisConcurrency,
    onOom: (detail) => ooms.push(detail),
    onMemory: (bytes) => memory.push(bytes),
  });
  const outcomes = new Map<string, ProofOutcome & { at: number }>();
  const submit = (spec: Partial<PipelineJobSpec> & { jobId: string }) =>
    pipeline.submit({ kind: "porep", priority: 2, ...spec }, (outcome) =>
      outcomes.set(spec.jobId, { ...outcome, at: scheduler.now() }),
    );
  return { scheduler, model, pipeline, memory, ooms, outcomes, submit };
}

const ms = (sec: number) => Math.round(sec * 1000);

describe("pipeline timing", () => {
  it("runs the first proof cold: parameter load, slower synthesis in waves of the slot count, GPU, assembly", () => {
    const { scheduler, model, outcomes, submit } = setup();
    const porep = model.kinds.porep;
    expect(model.synthesisSlots("porep", false)).toBe(4);
    submit({ jobId: "first" });
    scheduler.runAll();
    const cold = porep.synthesisSec * model.coldSynthesisFactor;
    // 10 partitions in waves of 4, 4, 2; the last two share the two GPU workers.
    const expectedSec = model.srsLoadSec + 3 * cold + porep.gpuWorkerSec + porep.overheadSec;
    const outcome = outcomes.get("first");
    expect(outcome?.status).toBe("completed");
    if (outcome?.status !== "completed") return;
    expect(outcome.timings.totalMs).toBe(ms(expectedSec));
    expect(outcome.timings.synthesisMs).toBe(ms(10 * cold));
    expect(outcome.timings.gpuComputeMs).toBe(ms(10 * porep.gpuWorkerSec));
    // The parameter load happens before the assembler is registered: it counts as queue wait.
    expect(outcome.timings.queueWaitMs).toBe(ms(model.srsLoadSec));
  });

  it("runs later proofs warm once the PCE is extracted", () => {
    const { scheduler, model, outcomes, submit } = setup();
    submit({ jobId: "warmup" });
    scheduler.runAll(); // includes the background PCE extraction
    const start = scheduler.now();
    submit({ jobId: "warm" });
    scheduler.runAll();
    const porep = model.kinds.porep;
    const outcome = outcomes.get("warm");
    if (outcome?.status !== "completed") throw new Error("expected a completed proof");
    // Stage times are summed in floating point: compare to the microsecond.
    expect(outcome.at - start).toBeCloseTo(
      (3 * porep.synthesisSec + porep.gpuWorkerSec + porep.overheadSec) * 1000,
      3,
    );
    expect(outcome.timings.queueWaitMs).toBe(0);
  });

  it("starts warm when a PCE cache exists", () => {
    const { scheduler, model, outcomes, submit, memory } = setup({ pceCached: true });
    submit({ jobId: "a" });
    scheduler.runAll();
    const porep = model.kinds.porep;
    const outcome = outcomes.get("a");
    if (outcome?.status !== "completed") throw new Error("expected a completed proof");
    expect(outcome.timings.totalMs).toBe(
      ms(model.srsLoadSec + 3 * porep.synthesisSec + porep.gpuWorkerSec + porep.overheadSec),
    );
    expect(memory.at(-1)).toBe(model.srsBytes["porep-32g"] + model.pceBytes["porep-32g"]);
  });

  it("lets no more GPU work run at once than there are GPU workers", () => {
    const hardware = hardwareFrom({ ram: "512GiB", cores: 32, gpus: "1xRTX3090" });
    const config = { ...defaultSimConfig(), partitionWorkers: 10 };
    const { scheduler, model, pipeline, outcomes, submit } = setup({ hardware, config });
    submit({ jobId: "a" });
    const porep = model.kinds.porep;
    const synthDone = model.srsLoadSec + porep.synthesisSec * model.coldSynthesisFactor;
    scheduler.advance(ms(synthDone) + 1);
    const view = pipeline.snapshot();
    expect(view.onGpu).toBe(1);
    expect(view.waitingForGpu).toBe(9);
    expect(view.gpuWorkers).toHaveLength(1);
    expect(view.gpuWorkers[0]).toMatchObject({ jobId: "a", kind: "porep", partition: 0 });
    scheduler.runAll();
    const outcome = outcomes.get("a");
    if (outcome?.status !== "completed") throw new Error("expected a completed proof");
    expect(outcome.timings.totalMs).toBe(ms(synthDone + 10 * porep.gpuWorkerSec + porep.overheadSec));
  });

  it("shows one GPU worker per device x gpu_workers_per_device, ordinals repeated", () => {
    const { pipeline } = setup({ config: { ...defaultSimConfig(), gpuWorkersPerDevice: 2 } });
    expect(pipeline.snapshot().gpuWorkers.map((w) => w.gpuOrdinal)).toEqual([0, 0, 1, 1]);
  });

  it("dispatches one proof at a time and by priority while the parameters load", () => {
    const { scheduler, pipeline, outcomes, submit } = setup();
    submit({ jobId: "first" });
    submit({ jobId: "low", priority: 1 });
    submit({ jobId: "critical", priority: 4 });
    expect(pipeline.snapshot().queued).toEqual({ porep: 2 });
    scheduler.runAll();
    expect(outcomes.get("critical")!.at).toBeLessThan(outcomes.get("low")!.at);
  });
});

describe("pipeline failures", () => {
  it("fails a bad input at dispatch, without loading parameters", () => {
    const { scheduler, outcomes, submit, memory } = setup();
    submit({ jobId: "bad", inputFailure: "C1 parse failed: nope" });
    expect(outcomes.get("bad")).toEqual({ status: "failed", errorMessage: "C1 parse failed: nope", at: 0 });
    expect(scheduler.pendingTimers()).toBe(0);
    expect(memory.at(-1)).toBe(0);
  });

  it("runs an injected failure to the end, then fails it", () => {
    const { scheduler, model, outcomes, submit } = setup();
    submit({ jobId: "x", injectedFailure: "partition 3 synthesis failed: injected" });
    scheduler.runAll();
    const porep = model.kinds.porep;
    const cold = porep.synthesisSec * model.coldSynthesisFactor;
    const outcome = outcomes.get("x");
    expect(outcome).toMatchObject({
      status: "failed",
      errorMessage: "partition 3 synthesis failed: injected",
    });
    expect(outcome?.at).toBeCloseTo(
      (model.srsLoadSec + 3 * cold + porep.gpuWorkerSec + porep.overheadSec) * 1000,
      3,
    );
  });
});

describe("pipeline memory", () => {
  it("peaks at core's cold-start peak when the next proof overlaps the PCE extraction, then holds parameters and PCE", () => {
    const hardware = defaultSimHardware();
    const config = defaultSimConfig();
    const { scheduler, model, pipeline, memory, submit } = setup({ hardware, config });
    submit({ jobId: "a" });
    submit({ jobId: "b" });
    let maxSynthesizing = 0;
    for (let t = 0; scheduler.pendingTimers() > 0 && t < 10_000; t++) {
      scheduler.advance(1000);
      maxSynthesizing = Math.max(maxSynthesizing, pipeline.snapshot().synthesizing);
    }
    expect(maxSynthesizing).toBe(4);
    const expected = modelDaemon(hardware, config, { kind: "porep", concurrency: 2 });
    expect(Math.max(...memory)).toBe(expected.memory["cold-start"].peakBytes);
    expect(memory.at(-1)).toBe(model.srsBytes["porep-32g"] + model.pceBytes["porep-32g"]);
  });

  it("is OOM-killed when a config overshoots usable RAM, and stops all work", () => {
    const hardware = hardwareFrom({ ram: "128GiB", cores: 32, gpus: "2xRTX3090" });
    const config = { ...defaultSimConfig(), partitionWorkers: 10 };
    const { scheduler, ooms, outcomes, submit } = setup({ hardware, config });
    submit({ jobId: "a" });
    scheduler.runAll();
    const expected = modelDaemon(hardware, config, { kind: "porep", concurrency: 1 }).memory.warmup;
    expect(expected.peakBytes).toBeGreaterThan(hardware.usableRamBytes);
    expect(ooms).toHaveLength(1);
    expect(ooms[0]!.memoryInUseBytes).toBeGreaterThan(hardware.usableRamBytes);
    expect(ooms[0]!.memoryInUseBytes).toBeLessThanOrEqual(expected.peakBytes);
    expect(outcomes.size).toBe(0);
    expect(scheduler.pendingTimers()).toBe(0);
  });

  it("counts a container memory limit, not host RAM", () => {
    const hardware = hardwareFrom({ ram: "512GiB", memoryLimit: "100GiB", cores: 32, gpus: "2xRTX3090" });
    const { scheduler, ooms, submit } = setup({ hardware });
    submit({ jobId: "a" });
    scheduler.runAll();
    expect(ooms).toHaveLength(1);
  });
});

describe("pipeline preload", () => {
  it("loads parameters once and reports later preloads as already loaded", () => {
    const { scheduler, model, pipeline } = setup();
    const answers: [boolean, number][] = [];
    pipeline.preload("wpost-32g", (already) => answers.push([already, scheduler.now()]));
    scheduler.runAll();
    pipeline.preload("wpost-32g", (already) => answers.push([already, scheduler.now()]));
    expect(answers).toEqual([
      [false, ms(model.srsLoadSec)],
      [true, ms(model.srsLoadSec)],
    ]);
    expect(pipeline.memoryInUseBytes()).toBe(model.srsBytes["wpost-32g"]);
  });
});

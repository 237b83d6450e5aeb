import { hardwareFrom, readCuzkConfig } from "@cuzkit/core";
import { simulateProofs } from "@cuzkit/sim";
import { describe, expect, it } from "vitest";
import { compareUnderModel, type DemoOptions, demoProfiles, planDemo, type SimRun } from "./demo.js";
import { predictDemoRun } from "./demo-prediction.js";

// Every demo profile and the README's custom example, through core's model and the simulated
// pipeline in modelled time (no daemon, no real timers): the tuner's pick is at least as good as
// the hand-set config wherever the model lets the hand-set one run, and the demo's OOM claims
// are what the simulated run does.

const readmeMachine = hardwareFrom({ ram: "512GiB", cores: 64, gpus: "2xRTX4090" });
const cases: [string, DemoOptions][] = [
  ...Object.keys(demoProfiles).map((profile): [string, DemoOptions] => [profile, { profile }]),
  ["README: --ram 512GiB --cores 64 --gpus 2xRTX4090", { hardware: readmeMachine }],
  [
    "README: --ram 512GiB --cores 64 --gpus 2xRTX4090 --dialect budget",
    { hardware: readmeMachine, dialect: "budget" },
  ],
];

/** What the simulator does with a run as the demo's benchmark drives it: warmup, then restart onto the PCE file or not. */
function simulateRun(options: DemoOptions, run: SimRun) {
  const { hardware } = planDemo(options);
  const config = readCuzkConfig(run.configToml).config;
  const restarts = run.warmupConfigToml !== undefined;
  if (!restarts) {
    return simulateProofs({ hardware, config, warmupProofs: 1, proofs: 6, concurrency: run.concurrency });
  }
  const warmupConfig = readCuzkConfig(run.warmupConfigToml as string).config;
  const warmup = simulateProofs({ hardware, config: warmupConfig, proofs: 1 });
  if (warmup.oom) return warmup;
  // The partition-workers daemon loads the PCE file the warmup wrote; the budget daemon never does.
  const pceCached = config.dialect === "partition-workers";
  const batch = simulateProofs({ hardware, config, proofs: 6, concurrency: run.concurrency, pceCached });
  return { ...batch, completed: warmup.completed + batch.completed };
}

describe("the demo tells the model's story", () => {
  it.each(cases)(
    "%s: the tuner's pick is at least as good as the hand-set config, or the demo says why not",
    (_, options) => {
      const plan = planDemo(options);
      expect(plan.tuned).toBeDefined();
      const tuned = plan.tuned as SimRun;
      const comparison = compareUnderModel(plan.hardware, plan.recommendation, tuned, plan.incident);
      // The tuner's pick runs through every phase of its run without an OOM kill.
      expect(comparison.tuned?.oomPhase).toBeUndefined();
      const handSet = comparison.incident;
      const handSetRuns = handSet.oomPhase === undefined;
      const handSetSafe = handSetRuns && handSet.peakBytes <= plan.recommendation.predicted.allowedPeakBytes;
      if (handSetSafe) expect(comparison.tuned?.proofsPerHour).toBeGreaterThanOrEqual(handSet.proofsPerHour);
      if ((comparison.tuned?.proofsPerHour ?? 0) < handSet.proofsPerHour) {
        expect(comparison.whyNotTuned).toMatch(/OOM-killed|safety margin/);
      } else {
        expect(comparison.whyNotTuned).toBeUndefined();
      }
    },
  );

  it.each(cases)("%s: the simulated runs are OOM-killed exactly where the model says", (_, options) => {
    const plan = planDemo(options);
    for (const run of [plan.tuned as SimRun, plan.incident]) {
      const predicted = predictDemoRun(plan.hardware, run);
      const simulated = simulateRun(options, run);
      const what = `${run.configToml.trim().split("\n").at(-1)} x${run.concurrency}`;
      expect(simulated.oom !== undefined, what).toBe(predicted.oomPhase !== undefined);
      // An OOM the model puts in the warmup kills the first proof: nothing completes.
      if (predicted.oomPhase === "warmup") expect(simulated.completed, what).toBe(0);
      if (predicted.oomPhase === undefined) {
        expect(simulated.completed, what).toBe(7);
        expect(simulated.peakBytes, what).toBeLessThanOrEqual(predicted.peakBytes);
      }
    }
  });

  it.each(cases)(
    "%s: each batch that runs reads on the simulated pipeline what the model predicts for its window",
    (_, options) => {
      const plan = planDemo(options);
      let compared = 0;
      for (const run of [plan.tuned as SimRun, plan.incident]) {
        const predicted = predictDemoRun(plan.hardware, { ...run, count: 12 });
        if (predicted.oomPhase !== undefined) continue;
        const config = readCuzkConfig(run.configToml).config;
        // The timed batch from its first submit, as the benchmark's window: after the warmup
        // restart on a fresh daemon, or right after the warmup proof on the same one.
        const restarts = run.warmupConfigToml !== undefined;
        const simulated = simulateProofs({
          hardware: plan.hardware,
          config,
          warmupProofs: restarts ? 0 : 1,
          proofs: 12,
          concurrency: run.concurrency,
          pceCached: restarts && config.dialect === "partition-workers",
        });
        const windowSec =
          (simulated.completedAtSec.at(-1) ?? Number.POSITIVE_INFINITY) -
          (restarts ? 0 : (simulated.completedAtSec[0] ?? 0));
        const ratio = (12 * 3600) / windowSec / predicted.windowProofsPerHour;
        expect(ratio, run.configToml).toBeGreaterThan(0.9);
        expect(ratio, run.configToml).toBeLessThan(1.1);
        compared++;
      }
      expect(compared).toBeGreaterThanOrEqual(1);
    },
  );

  it("the default demo's warmup with partition_workers=2 completes and is not called an OOM", () => {
    const plan = planDemo({ profile: "czechia-2x3090" });
    const predicted = predictDemoRun(plan.hardware, plan.incident);
    expect(predicted.phases.map((p) => [p.phase, p.oom])).toEqual([
      ["warmup", false],
      ["steady", true],
    ]);
    const simulated = simulateRun({ profile: "czechia-2x3090" }, plan.incident);
    expect(simulated.completed).toBe(1);
    expect(simulated.oom).toBeDefined();
  });
});

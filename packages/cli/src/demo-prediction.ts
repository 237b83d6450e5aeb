import {
  type DaemonPhase,
  formatBytes,
  type HardwareSpec,
  modelConstants as K,
  modelDaemon,
  partitionsPerProof,
  readCuzkConfig,
} from "@cuzkit/core";

// What core's daemon model says about one demo run, phase by phase as the run goes through
// them: the warmup proof (with the warmup config when there is one), then either the restart
// onto a PCE file (steady state from the start) or the timed batch overlapping the PCE
// extraction (cold start, then steady). The simulator runs the same law, so the daemon is
// OOM-killed in the run exactly when one of these peaks passes usable RAM.

/** A run of the demo: its configs and proofs in flight. */
export interface DemoRunPlan {
  /** The cuzk.toml of the timed batch. */
  configToml: string;
  /** The warmup cuzk.toml, when the run warms up with it and restarts. */
  warmupConfigToml?: string | undefined;
  /** Proofs in flight in the timed batch. */
  concurrency: number;
  /** Timed proofs. */
  count: number;
}

/** One phase the run goes through, with the model's peak. */
export interface PhasePrediction {
  phase: DaemonPhase;
  /** What happens in it, for people. */
  what: string;
  peakBytes: number;
  /** True when the peak passes usable RAM: the daemon is OOM-killed here. */
  oom: boolean;
}

/** The model's prediction for one run. */
export interface RunPrediction {
  /** The phases in the order the run meets them. */
  phases: PhasePrediction[];
  /** The first phase whose peak passes usable RAM, when the run is expected to be OOM-killed. */
  oomPhase?: DaemonPhase | undefined;
  /** Highest peak of the phases run, in bytes. */
  peakBytes: number;
  usableRamBytes: number;
  /** The model's steady-state proofs per hour of the timed config at the run's concurrency. */
  proofsPerHour: number;
  /**
   * The model's proofs per hour over the benchmark's window (first timed submit to last
   * settle): the restarted daemon's parameter load, the first proofs' latency, then the steady
   * rate. What a short simulated benchmark should read; 0 when the run is expected to die.
   */
  windowProofsPerHour: number;
}

/** Whether the daemon reading `toml` loads a PCE file written by an earlier run (as the simulator decides it). */
function reusesPceFile(toml: string): boolean {
  return readCuzkConfig(toml).config.dialect === "partition-workers";
}

/**
 * When the first proof of a freshly started daemon with a PCE file completes: the parameter load,
 * its partitions' synthesis in waves of the slots (each slot held for the CPU side's time per
 * proof x slots / partitions, as the simulator runs it), the GPU stage of the last wave, assembly.
 */
function firstWarmProofSec(hardware: HardwareSpec, model: ReturnType<typeof modelDaemon>): number {
  const t = model.timing;
  const partitions = partitionsPerProof.porep;
  const slots = Math.max(1, model.memory.steady.synthesizingPartitions);
  const perWave = Math.min(slots, partitions);
  const waves = Math.ceil(partitions / perWave);
  const lastWave = partitions - (waves - 1) * perWave;
  const slotSec = (t.cpuSideSecPerProof * slots) / partitions;
  const gpuTailSec = (lastWave * t.gpuSecPerPartition) / Math.max(1, hardware.gpus.length);
  return K.srsLoadSec.value + waves * slotSec + gpuTailSec + K.perProofOverheadSec.value;
}

/** Predicts, from core's daemon model, the phases of a demo run on `hardware`, and which one OOM-kills it. */
export function predictDemoRun(hardware: HardwareSpec, run: DemoRunPlan): RunPrediction {
  const config = readCuzkConfig(run.configToml).config;
  const full = modelDaemon(hardware, config, { kind: "porep", concurrency: run.concurrency });
  const warmupConfig =
    run.warmupConfigToml === undefined ? config : readCuzkConfig(run.warmupConfigToml).config;
  const warm = modelDaemon(hardware, warmupConfig, { kind: "porep", concurrency: 1 });
  const restartsOntoPce = run.warmupConfigToml !== undefined && reusesPceFile(run.configToml);
  const usable = hardware.usableRamBytes;
  const phase = (p: DaemonPhase, what: string, peakBytes: number): PhasePrediction => ({
    phase: p,
    what,
    peakBytes,
    oom: peakBytes > usable,
  });
  const phases: PhasePrediction[] = [
    phase(
      "warmup",
      "the first, cache-less proof alone, then the PCE extraction",
      warm.memory.warmup.peakBytes,
    ),
  ];
  if (!restartsOntoPce) {
    phases.push(
      phase(
        "cold-start",
        `the timed batch (${run.concurrency} in flight) overlapping the PCE extraction`,
        full.memory["cold-start"].peakBytes,
      ),
    );
  }
  phases.push(
    phase(
      "steady",
      `the timed batch (${run.concurrency} in flight), PCE resident`,
      full.memory.steady.peakBytes,
    ),
  );
  const oomPhase = phases.find((p) => p.oom)?.phase;
  // Onto a PCE file, the restarted daemon loads its parameters, then runs warm. Otherwise the
  // first proofs in flight run cold next to the PCE extraction (the model's worst case), after
  // a parameter load only if the daemon was restarted.
  const t = full.timing;
  const concurrent = Math.min(run.count, run.concurrency);
  const windowSec = restartsOntoPce
    ? firstWarmProofSec(hardware, full) + Math.max(0, run.count - 1) * t.secPerProof
    : t.worstCaseProofSec -
      (run.warmupConfigToml === undefined ? K.srsLoadSec.value : 0) +
      Math.max(0, run.count - concurrent) * t.secPerProof;
  return {
    phases,
    oomPhase,
    peakBytes: Math.max(...phases.map((p) => p.peakBytes)),
    usableRamBytes: usable,
    proofsPerHour: full.timing.proofsPerHour,
    windowProofsPerHour:
      oomPhase === undefined && Number.isFinite(windowSec) && windowSec > 0
        ? (run.count * 3600) / windowSec
        : 0,
  };
}

/** One line per phase: "warmup: peak 184 GiB vs 251 GiB usable: fits". */
export function formatRunPrediction(prediction: RunPrediction): string[] {
  const usable = formatBytes(prediction.usableRamBytes);
  return prediction.phases.map(
    (p) =>
      `${p.phase} (${p.what}): peak ${formatBytes(p.peakBytes)} vs ${usable} usable: ${p.oom ? "OOM kill expected" : "fits"}`,
  );
}

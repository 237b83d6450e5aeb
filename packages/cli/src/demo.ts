import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type BenchmarkEvent,
  type BenchmarkReport,
  type ProgressSnapshot,
  runBenchmark,
  toMachineTime,
} from "@cuzkit/bench";
import { porepRequest } from "@cuzkit/client";
import {
  type DaemonDialect,
  formatBytes,
  type HardwareSpec,
  InvalidInputError,
  modelDaemon,
  readCuzkConfig,
} from "@cuzkit/core";
import { createSyntheticC1 } from "@cuzkit/sim";
import { type CheckResult, checkConfig, emitCuzkToml, type Recommendation, recommend } from "@cuzkit/tuner";
import { stringify as toToml } from "smol-toml";
import { predictDemoRun, type RunPrediction } from "./demo-prediction.js";
import {
  type DemoProfile,
  defaultDemoProfile,
  demoProfiles,
  exampleMinProofsPerHour,
  type IncidentRun,
} from "./demo-profiles.js";
import { createSimSupervisor } from "./sim-supervisor.js";

export {
  type DemoProfile,
  defaultDemoProfile,
  demoProfiles,
  exampleMinProofsPerHour,
  type IncidentRun,
  incidentToml,
} from "./demo-profiles.js";

/** The incidents' config on a machine given by flags: the image's hard-coded one. */
const defaultIncident: IncidentRun = demoProfiles["256gb"]?.incident as IncidentRun;

/** Options of runDemo. */
export interface DemoOptions {
  /** A name from demoProfiles. Default defaultDemoProfile ("czechia-2x3090"). */
  profile?: string | undefined;
  /** A machine instead of a profile. */
  hardware?: HardwareSpec | undefined;
  /** Timed proofs of each run. Default 12. */
  proofs?: number | undefined;
  /** The daemon dialect tuned for. Default "partition-workers" (what the incidents ran, so the comparison is like for like). */
  dialect?: DaemonDialect | undefined;
  /** Real seconds both runs together should take; sets the simulator's time scale. Default 20. */
  targetSeconds?: number | undefined;
  /** Threshold in proofs/hour, machine time. Default 40 (exampleMinProofsPerHour). */
  minProofsPerHour?: number | undefined;
  /** Progress of both runs. */
  onProgress?:
    | ((
        run: "tuned" | "incident",
        event: BenchmarkEvent,
        snapshot: ProgressSnapshot,
        timeScale: number,
      ) => void)
    | undefined;
}

/** What the demo found; both reports are in the simulated machine's time. */
export interface DemoResult {
  machine: string;
  hardware: HardwareSpec;
  /** Real seconds per simulated second. */
  timeScale: number;
  /** The threshold used, proofs/hour in machine time. */
  minProofsPerHour: number;
  tuned: { recommendation: Recommendation; report: BenchmarkReport | undefined };
  incident: { run: IncidentRun; check: CheckResult; report: BenchmarkReport };
  /** What core's daemon model (the law the simulator runs) predicts for both runs. */
  model: DemoModelComparison;
}

/** The model's view of both runs, and why the tuner's pick is not the faster one when it is not. */
export interface DemoModelComparison {
  /** The tuned run, phase by phase; undefined when nothing fits. */
  tuned: RunPrediction | undefined;
  /** The hand-set run, phase by phase. */
  incident: RunPrediction;
  /** Set when the hand-set config makes more proofs/h than the tuner's pick under the model: why the tuner did not pick it. */
  whyNotTuned?: string | undefined;
}

/** Compares both runs under the model; explains a hand-set config the model rates faster than the tuner's pick. */
export function compareUnderModel(
  hardware: HardwareSpec,
  recommendation: Recommendation,
  tuned: SimRun | undefined,
  incident: SimRun,
): DemoModelComparison {
  const incidentPrediction = predictDemoRun(hardware, incident);
  const tunedPrediction = tuned ? predictDemoRun(hardware, tuned) : undefined;
  if (!tunedPrediction || incidentPrediction.proofsPerHour <= tunedPrediction.proofsPerHour) {
    return { tuned: tunedPrediction, incident: incidentPrediction };
  }
  const rate = `${incidentPrediction.proofsPerHour.toFixed(1)} proofs/h vs ${tunedPrediction.proofsPerHour.toFixed(1)}`;
  const usable = formatBytes(hardware.usableRamBytes);
  const oom = incidentPrediction.phases.find((phase) => phase.oom);
  const allowed = recommendation.predicted.allowedPeakBytes;
  const whyNotTuned = oom
    ? `the hand-set config would be faster in steady state (${rate}), but the model expects this run of it to be OOM-killed in the ${oom.phase} phase (peak ${formatBytes(oom.peakBytes)} vs ${usable} usable)`
    : incidentPrediction.peakBytes > allowed
      ? `the hand-set config is faster under the model (${rate}), but its peak ${formatBytes(incidentPrediction.peakBytes)} leaves less than the tuner's ${formatBytes(recommendation.predicted.safetyMarginBytes)} safety margin below ${usable} usable; the tuner's pick peaks at ${formatBytes(tunedPrediction.peakBytes)}`
      : `the hand-set config is faster under the model (${rate}) and fits: the tuner's search missed it`;
  return { tuned: tunedPrediction, incident: incidentPrediction, whyNotTuned };
}

/** One run of the demo on the simulated machine. */
export interface SimRun {
  configToml: string;
  warmupConfigToml?: string | undefined;
  count: number;
  concurrency: number;
}

async function benchOnSim(
  hardware: HardwareSpec,
  timeScale: number,
  minProofsPerHour: number,
  run: SimRun,
  onProgress: ((event: BenchmarkEvent, snapshot: ProgressSnapshot) => void) | undefined,
): Promise<BenchmarkReport> {
  // A unix socket in a fresh folder: the simulator restarts on the same address between the
  // warmup and the timed batch, and no other program can take it meanwhile (as Curio's
  // default unix:///run/curio/cuzk.sock). The param cache is there too: the warmup daemon
  // writes its PCE file, the restarted one reads it.
  const dir = await mkdtemp(join(tmpdir(), "cuzkit-demo-"));
  const address = `unix://${join(dir, "cuzk.sock")}`;
  const paramCacheDir = join(dir, "params");
  const supervisor = await createSimSupervisor({ hardware, timeScale, listen: address, paramCacheDir });
  const warmupConfig =
    run.warmupConfigToml === undefined ? undefined : readCuzkConfig(run.warmupConfigToml).config;
  try {
    const report = await runBenchmark({
      address,
      request: await porepRequest({ c1: createSyntheticC1(), minerId: 1000, sectorNumber: 1 }),
      count: run.count,
      concurrency: run.concurrency,
      warmup: "auto",
      // The threshold is in machine time; the simulated machine runs 1/timeScale times faster.
      minProofsPerHour: minProofsPerHour / timeScale,
      supervision: {
        supervisor,
        configToml: run.configToml,
        warmupConfigToml: run.warmupConfigToml,
        pceWait: run.warmupConfigToml === undefined ? undefined : { dir: paramCacheDir },
        onCrash: "stop",
      },
      model: {
        hardware,
        config: readCuzkConfig(run.configToml).config,
        warmupConfig,
        timeScale,
      },
      // In real time: the simulator listens at once.
      readyTimeoutMs: 20_000,
      // The simulated machine is the only daemon here: give up on it quickly once it is dead.
      client: { reconnect: { giveUpAfterMs: 2_000, maxDelayMs: 250 } },
      onProgress,
    });
    return toMachineTime(report, timeScale);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Modelled machine seconds of a run: the first (cold) proof, then the batch. */
function modelledSeconds(hardware: HardwareSpec, run: SimRun): number {
  const workload = { kind: "porep" as const, concurrency: run.concurrency };
  const full = modelDaemon(hardware, readCuzkConfig(run.configToml).config, workload).timing;
  const warm =
    run.warmupConfigToml === undefined
      ? full
      : modelDaemon(hardware, readCuzkConfig(run.warmupConfigToml).config, { ...workload, concurrency: 1 })
          .timing;
  const batch = (run.count / run.concurrency) * full.proofLatencySec;
  const sec = warm.firstProofSec + batch;
  return Number.isFinite(sec) ? sec : 0;
}

/** The two runs of a demo, before anything runs. */
export interface DemoPlan {
  machine: string;
  hardware: HardwareSpec;
  recommendation: Recommendation;
  /** The tuned run; undefined when nothing fits. */
  tuned: SimRun | undefined;
  /** The incident's own config, replayed. */
  incident: SimRun;
  incidentRun: IncidentRun;
}

/** Resolves the machine, tunes it and lays out both runs (nothing runs). */
export function planDemo(options: DemoOptions = {}): DemoPlan {
  const profileName = options.profile ?? defaultDemoProfile;
  const profile = options.hardware ? undefined : demoProfiles[profileName];
  if (!options.hardware && !profile) {
    throw new InvalidInputError(`unknown demo profile "${profileName}"`, {
      hint: `use one of ${Object.keys(demoProfiles).join(", ")}, or give --ram/--cores/--gpus`,
    });
  }
  const hardware = options.hardware ?? (profile as DemoProfile).hardware;
  const incidentRun = profile?.incident ?? defaultIncident;
  const proofs = options.proofs ?? 12;
  const recommendation = recommend(hardware, { dialect: options.dialect ?? "partition-workers" });
  const tuned: SimRun | undefined = recommendation.feasible
    ? {
        configToml: emitCuzkToml(recommendation),
        warmupConfigToml: recommendation.warmup.restart ? toToml(recommendation.warmup.config) : undefined,
        count: proofs,
        concurrency: recommendation.bench.concurrency,
      }
    : undefined;
  const incident: SimRun = {
    configToml: incidentRun.toml,
    warmupConfigToml: incidentRun.warmupToml,
    count: proofs,
    concurrency: incidentRun.concurrency,
  };
  return {
    machine: profile?.description ?? "the given machine",
    hardware,
    recommendation,
    tuned,
    incident,
    incidentRun,
  };
}

/**
 * Tunes a machine from the incidents, benchmarks the tuned config on the simulated daemon
 * (warmup with the warmup plan, wait for the PCE file, restart, timed batch), then replays the
 * incident's own config on the same simulated machine. Both reports are in machine time and
 * judged against an example minimum (40 proofs/h).
 */
export async function runDemo(options: DemoOptions = {}): Promise<DemoResult> {
  const plan = planDemo(options);
  const { hardware, recommendation, incidentRun } = plan;
  const tunedRun = plan.tuned;
  const replay = plan.incident;
  const minProofsPerHour = options.minProofsPerHour ?? exampleMinProofsPerHour;
  // Scale machine time so both runs together take about targetSeconds of real time.
  const modelled = (tunedRun ? modelledSeconds(hardware, tunedRun) : 0) + modelledSeconds(hardware, replay);
  const timeScale = Math.min(0.05, Math.max(1e-4, (options.targetSeconds ?? 20) / Math.max(1, modelled)));

  const progress = (run: "tuned" | "incident") =>
    options.onProgress
      ? (event: BenchmarkEvent, snapshot: ProgressSnapshot) =>
          options.onProgress?.(run, event, snapshot, timeScale)
      : undefined;
  const tunedReport = tunedRun
    ? await benchOnSim(hardware, timeScale, minProofsPerHour, tunedRun, progress("tuned"))
    : undefined;
  // Checked as the daemon the file is written for reads it (the one the simulator runs).
  const check = checkConfig(hardware, incidentRun.toml, {
    concurrency: incidentRun.concurrency,
    dialect: readCuzkConfig(incidentRun.toml).config.dialect,
  });
  const incidentReport = await benchOnSim(
    hardware,
    timeScale,
    minProofsPerHour,
    replay,
    progress("incident"),
  );
  return {
    machine: plan.machine,
    hardware,
    timeScale,
    minProofsPerHour,
    tuned: { recommendation, report: tunedReport },
    incident: { run: incidentRun, check, report: incidentReport },
    model: compareUnderModel(hardware, recommendation, tunedRun, replay),
  };
}

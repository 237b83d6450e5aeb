import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type BenchmarkEvent,
  type BenchmarkReport,
  type ProgressSnapshot,
  runBenchmark,
} from "@cuzkit/bench";
import { porepRequest } from "@cuzkit/client";
import {
  type DaemonDialect,
  type HardwareSpec,
  hardwareFrom,
  InvalidInputError,
  modelConstants,
} from "@cuzkit/core";
import { createSyntheticC1 } from "@cuzkit/sim";
import { type CheckResult, checkConfig, emitCuzkToml, type Recommendation, recommend } from "@cuzkit/tuner";
import { stringify as toToml } from "smol-toml";
import { createSimSupervisor } from "./sim-supervisor.js";

/** A machine from the incidents in shared/seeds (CPU counts were not recorded: 32 threads assumed). */
export interface DemoProfile {
  description: string;
  hardware: HardwareSpec;
}

/** The machines of the incidents, by name. */
export const demoProfiles: Record<string, DemoProfile> = {
  "czechia-2x3090": {
    description:
      "Czechia: 2x RTX 3090, 251 GB RAM; auto-configured to partition_workers=10 and lost its daemon mid-benchmark",
    hardware: hardwareFrom({ ram: "251GiB", cores: 32, gpus: "2xRTX3090" }),
  },
  "bc-canada-125gb": {
    description: "BC Canada: 125 GB RAM; OOM-killed in its first, cache-less proof",
    hardware: hardwareFrom({ ram: "125GiB", cores: 32, gpus: "2xRTX3090" }),
  },
  "256gb": {
    description:
      "a 256 GB machine run with partition_workers=16 and 6 proofs in flight: broken pipe (OOM kill)",
    hardware: hardwareFrom({ ram: "256GiB", cores: 64, gpus: "2xRTX3090" }),
  },
  "belgium-2xa40": {
    description: "Belgium: 2x A40 on a 2 TB host; finished but below threshold (35.9 proofs/h)",
    hardware: hardwareFrom({ ram: "2TiB", cores: 64, gpus: "2xA40" }),
  },
};

/** The settings the incidents' image hard-coded (shared/seeds/003). */
export const incidentToml = `# the incidents' hand-set pipeline settings (shared/seeds/003)
[synthesis]
partition_workers = 16

[gpus]
gpu_workers_per_device = 2
gpu_threads = 32
`;
/** Proofs in flight in the incident. */
export const incidentConcurrency = 6;

/** Options of runDemo. */
export interface DemoOptions {
  /** A name from demoProfiles. Default "czechia-2x3090". */
  profile?: string;
  /** A machine instead of a profile. */
  hardware?: HardwareSpec;
  /** Timed proofs of the tuned run. Default 12. */
  proofs?: number;
  /** The daemon dialect tuned for. Default "partition-workers" (what the incidents ran, so the comparison is like for like). */
  dialect?: DaemonDialect;
  /** Real seconds the tuned run should take; sets the simulator's time scale. Default 25. */
  targetSeconds?: number;
  /** Progress of both runs. */
  onProgress?: (
    run: "tuned" | "incident",
    event: BenchmarkEvent,
    snapshot: ProgressSnapshot,
    timeScale: number,
  ) => void;
}

/** What the demo found. */
export interface DemoResult {
  machine: string;
  hardware: HardwareSpec;
  /** Real seconds per simulated second; the reports are in real time (see toMachineTime). */
  timeScale: number;
  tuned: { recommendation: Recommendation; report: BenchmarkReport | undefined };
  incident: { check: CheckResult; report: BenchmarkReport };
}

async function benchOnSim(
  hardware: HardwareSpec,
  timeScale: number,
  run: { configToml: string; warmupConfigToml?: string; count: number; concurrency: number },
  onProgress: ((event: BenchmarkEvent, snapshot: ProgressSnapshot) => void) | undefined,
): Promise<BenchmarkReport> {
  // A unix socket in a fresh folder: the simulator restarts on the same address between the
  // warmup and the timed batch, and no other program can take it meanwhile (as Curio's
  // default unix:///run/curio/cuzk.sock).
  const dir = await mkdtemp(join(tmpdir(), "cuzkit-demo-"));
  const address = `unix://${join(dir, "cuzk.sock")}`;
  const supervisor = await createSimSupervisor({ hardware, timeScale, listen: address });
  try {
    return await runBenchmark({
      address,
      request: await porepRequest({ c1: createSyntheticC1(), minerId: 1000, sectorNumber: 1 }),
      count: run.count,
      concurrency: run.concurrency,
      warmup: "auto",
      supervision: {
        supervisor,
        configToml: run.configToml,
        ...(run.warmupConfigToml === undefined ? {} : { warmupConfigToml: run.warmupConfigToml }),
        onCrash: "stop",
      },
      // The simulated machine is the only daemon here: give up on it quickly once it is dead.
      client: { reconnect: { giveUpAfterMs: 2_000, maxDelayMs: 250 } },
      ...(onProgress ? { onProgress } : {}),
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Tunes a machine from the incidents, benchmarks the tuned config on the simulated daemon
 * (warmup with the warmup plan, restart, timed batch), then runs the incidents' hand-set config
 * on the same simulated machine to show the OOM kill, detected and explained.
 */
export async function runDemo(options: DemoOptions = {}): Promise<DemoResult> {
  const profileName = options.profile ?? "czechia-2x3090";
  const profile = options.hardware ? undefined : demoProfiles[profileName];
  if (!options.hardware && !profile) {
    throw new InvalidInputError(
      `unknown demo profile "${profileName}"`,
      `use one of ${Object.keys(demoProfiles).join(", ")}, or give --ram/--cores/--gpus`,
    );
  }
  const hardware = options.hardware ?? (profile as DemoProfile).hardware;
  const dialect = options.dialect ?? "partition-workers";
  const proofs = options.proofs ?? 12;
  const recommendation = recommend(hardware, { dialect });

  // Scale modelled time so the tuned run takes about targetSeconds of real time.
  const p = recommendation.predicted;
  const modelledSec =
    recommendation.warmup.firstProofSec +
    modelConstants.srsLoadSec.value +
    (proofs / recommendation.bench.concurrency) * p.proofLatencySec;
  const timeScale = Math.min(0.05, Math.max(1e-4, (options.targetSeconds ?? 25) / Math.max(1, modelledSec)));

  let tunedReport: BenchmarkReport | undefined;
  if (recommendation.feasible) {
    tunedReport = await benchOnSim(
      hardware,
      timeScale,
      {
        configToml: emitCuzkToml(recommendation),
        ...(recommendation.warmup.restart ? { warmupConfigToml: toToml(recommendation.warmup.config) } : {}),
        count: proofs,
        concurrency: recommendation.bench.concurrency,
      },
      options.onProgress
        ? (event, snapshot) => options.onProgress?.("tuned", event, snapshot, timeScale)
        : undefined,
    );
  }
  const check = checkConfig(hardware, incidentToml, { concurrency: incidentConcurrency });
  const incidentReport = await benchOnSim(
    hardware,
    timeScale,
    { configToml: incidentToml, count: proofs, concurrency: incidentConcurrency },
    options.onProgress
      ? (event, snapshot) => options.onProgress?.("incident", event, snapshot, timeScale)
      : undefined,
  );
  return {
    machine: profile?.description ?? "the given machine",
    hardware,
    timeScale,
    tuned: { recommendation, report: tunedReport },
    incident: { check, report: incidentReport },
  };
}

// The machines of the incidents that `cuzkit demo` replays, apart from the demo's run (the
// simulator and the benchmark harness), so that the command's help names them without loading it.
import { type HardwareSpec, hardwareFrom } from "@cuzkit/core";

/** The hand-set config an incident ran, replayed on its simulated machine. */
export interface IncidentRun {
  /** What was set, for people, e.g. "partition_workers=10, 2 proofs in flight". */
  label: string;
  /** The cuzk.toml of the timed batch. */
  toml: string;
  /** The warmup cuzk.toml, when the incident warmed up with fewer partitions and restarted. */
  warmupToml?: string | undefined;
  /** Proofs in flight. */
  concurrency: number;
}

/** A machine from the incidents in docs/incidents.md (CPU counts were not recorded: 32 threads assumed). */
export interface DemoProfile {
  description: string;
  hardware: HardwareSpec;
  /** What the incident ran on it. */
  incident: IncidentRun;
}

/** The settings the incidents' image hard-coded (docs/incidents.md, the 256gb row). */
export const incidentToml = `# the incidents' hand-set pipeline settings (docs/incidents.md, the 256gb row)
[synthesis]
partition_workers = 16

[gpus]
gpu_workers_per_device = 2
gpu_threads = 32
`;

/** The warmup the incidents' image used after the BC Canada OOM: 2 partition workers, then restart (docs/incidents.md, Czechia). */
const incidentWarmupToml =
  "# the incidents' warmup (docs/incidents.md, Czechia)\n[synthesis]\npartition_workers = 2\n";

/** The profile `runDemo` and `cuzkit demo` use when given none. */
export const defaultDemoProfile = "czechia-2x3090";

/** The machines of the incidents, by name, with the config each ran. */
export const demoProfiles: Record<string, DemoProfile> = {
  "czechia-2x3090": {
    description:
      "Czechia: 2x RTX 3090, 251 GB RAM; auto-configured to partition_workers=10 at concurrency 2, lost its daemon mid-benchmark",
    hardware: hardwareFrom({ ram: "251GiB", cores: 32, gpus: "2xRTX3090" }),
    incident: {
      label: "partition_workers=10, 2 proofs in flight (warmup with 2, then restart)",
      toml: "# Czechia's auto-configured settings (docs/incidents.md, Czechia)\n[synthesis]\npartition_workers = 10\n",
      warmupToml: incidentWarmupToml,
      concurrency: 2,
    },
  },
  "bc-canada-125gb": {
    description: "BC Canada: 125 GB RAM; OOM-killed in its first, cache-less proof",
    hardware: hardwareFrom({ ram: "125GiB", cores: 32, gpus: "2xRTX3090" }),
    incident: {
      label: "partition_workers=16, gpu_workers_per_device=2, gpu_threads=32 from the first proof",
      toml: incidentToml,
      concurrency: 6,
    },
  },
  "256gb": {
    description:
      "a 256 GB machine run with partition_workers=16, gpu_workers_per_device=2, gpu_threads=32 and 6 proofs in flight: broken pipe (OOM kill)",
    hardware: hardwareFrom({ ram: "256GiB", cores: 64, gpus: "2xRTX3090" }),
    incident: {
      label: "partition_workers=16, gpu_workers_per_device=2, gpu_threads=32, 6 proofs in flight",
      toml: incidentToml,
      concurrency: 6,
    },
  },
  "belgium-2xa40": {
    description:
      "Belgium: 2x A40 on a 2 TB host, partition_workers=16 at concurrency 6; finished but below the fleet's minimum (35.9 proofs/h)",
    hardware: hardwareFrom({ ram: "2TiB", cores: 64, gpus: "2xA40" }),
    incident: {
      label:
        "partition_workers=16, gpu_workers_per_device=2, gpu_threads=32, 6 proofs in flight (warmup with 2, then restart)",
      toml: incidentToml,
      warmupToml: incidentWarmupToml,
      concurrency: 6,
    },
  },
};

/**
 * An example minimum, proofs/hour in machine time: the incidents' fleet value is not stated,
 * only that Belgium's 35.9/h fell below it.
 */
export const exampleMinProofsPerHour = 40;

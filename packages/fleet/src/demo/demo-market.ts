import { sampleOffers } from "@cuzkit/vast/testing";
import { hardwareClassKey } from "../economics/hardware-class.js";
import type { HiddenQuirk } from "../testing/hidden-truth.js";
import { gaussian, predictFor, seededRandom } from "../testing/hidden-truth.js";
import type { MachineBehaviour } from "../testing/market.js";

/** One offer of the demo's market, with the truth the fleet cannot see. */
export interface DemoOffer {
  offerId: number;
  machineId: number;
  hostId: number;
  gpuName: string;
  numGpus: number;
  ramGib: number;
  cpuCores: number;
  cpuName: string;
  dphTotal: number;
  /** The tuner's uncalibrated proofs/hour (modelled time). */
  predictedProofsPerHour: number;
  classKey: string;
  quirk: HiddenQuirk;
  /** The hidden bias of the offer's class over the model (shared by its machines). */
  classBias: number;
  /** True speed over the model's: class bias x this machine's spread x its quirk. */
  trueFactor: number;
  /** For `flaky`: modelled hours after its agent starts at which the host dies. */
  diesAfterHours: number | undefined;
}

interface Shape {
  gpuName: string;
  numGpus: number;
  ramGib: number;
  cpuCores: number;
  cpuName: string;
  classBias: number;
}

const a40: Shape = {
  gpuName: "A40",
  numGpus: 2,
  ramGib: 512,
  cpuCores: 32,
  cpuName: "Intel Xeon Gold 6248",
  classBias: 1,
};
const rtx3090: Shape = {
  gpuName: "RTX 3090",
  numGpus: 2,
  ramGib: 256,
  cpuCores: 32,
  cpuName: "AMD Ryzen 9 5950X",
  classBias: 1,
};
const quad3090: Shape = {
  gpuName: "RTX 3090",
  numGpus: 4,
  ramGib: 512,
  cpuCores: 64,
  cpuName: "AMD EPYC 7742",
  classBias: 1.35, // the model undersells this platform: the fleet should learn it
};
const a6000: Shape = {
  gpuName: "RTX A6000",
  numGpus: 2,
  ramGib: 512,
  cpuCores: 32,
  cpuName: "AMD EPYC 7302",
  classBias: 1,
};
const rtx4090: Shape = {
  gpuName: "RTX 4090",
  numGpus: 2,
  ramGib: 256,
  cpuCores: 32,
  cpuName: "AMD EPYC 7302",
  classBias: 0.85, // the model oversells this one
};

// The script of the demo: by the spec sheet, the best offers are the bad machines. The spec
// cost ($ per 1000 proofs at the model's rate) sets each price.
const script: ReadonlyArray<{ shape: Shape; quirk: HiddenQuirk; specCostPer1000: number }> = [
  { shape: a40, quirk: "slow-memory", specCostPer1000: 5.0 },
  { shape: rtx3090, quirk: "never-params", specCostPer1000: 5.2 },
  { shape: a6000, quirk: "flaky", specCostPer1000: 5.3 },
  { shape: rtx3090, quirk: "weak-cpu", specCostPer1000: 5.4 },
  { shape: quad3090, quirk: "none", specCostPer1000: 5.6 },
  { shape: quad3090, quirk: "none", specCostPer1000: 6.4 },
  { shape: a40, quirk: "none", specCostPer1000: 6.7 },
  { shape: rtx4090, quirk: "none", specCostPer1000: 6.0 },
];

// A weak CPU here is weaker than the in-process market's (0.45): real processes on a loaded
// machine measure up to a quarter low, and the demo's verdicts must not hang on the load.
const quirkFactors: Record<HiddenQuirk, number> = {
  none: 1,
  "slow-memory": 0.55,
  "weak-cpu": 0.3,
  flaky: 1,
  "never-params": 1,
};

/**
 * The demo's market: eight offers whose spec sheet ranks a slow-memory machine first, then one
 * whose parameters never finish, a flaky host and a weak CPU; the honest machines sit behind
 * them, and one class (4x RTX 3090 on EPYC) is 35% faster than the model says. The seed moves
 * each machine's own spread (about 3%), not the script.
 */
export function demoMarket(seed = 1): DemoOffer[] {
  const random = seededRandom(seed);
  return script.map(({ shape, quirk, specCostPer1000 }, i) => {
    const predicted = predictFor(shape.numGpus, shape.gpuName, shape.ramGib, shape.cpuCores);
    const spread = Math.exp(0.03 * gaussian(random));
    return {
      offerId: 2001 + i,
      machineId: 7001 + i,
      hostId: 801 + i,
      gpuName: shape.gpuName,
      numGpus: shape.numGpus,
      ramGib: shape.ramGib,
      cpuCores: shape.cpuCores,
      cpuName: shape.cpuName,
      dphTotal: Math.round(specCostPer1000 * predicted.proofsPerHour) / 1000,
      predictedProofsPerHour: predicted.proofsPerHour,
      classKey: hardwareClassKey({
        gpuName: shape.gpuName,
        numGpus: shape.numGpus,
        cpuRamBytes: shape.ramGib * 2 ** 30,
        cpuCores: shape.cpuCores,
        cpuName: shape.cpuName,
      }),
      quirk,
      classBias: shape.classBias,
      trueFactor: shape.classBias * spread * quirkFactors[quirk],
      diesAfterHours: quirk === "flaky" ? 3.5 : undefined,
    };
  });
}

const gpuRamMib: Record<string, number> = {
  A40: 46068,
  "RTX 3090": 24576,
  "RTX 4090": 24564,
  "RTX A6000": 49140,
};

/** The offer as the Vast API lists it (memory in MiB, prices in $/h), for the fake server. */
export function vastOfferRecord(offer: DemoOffer): Record<string, unknown> {
  const perGpu = gpuRamMib[offer.gpuName] ?? 24576;
  // The API's other fields (verified, rentable, network, CUDA) as the fake's sample offers have them.
  return {
    ...(sampleOffers()[0] as Record<string, unknown>),
    id: offer.offerId,
    machine_id: offer.machineId,
    host_id: offer.hostId,
    gpu_name: offer.gpuName,
    num_gpus: offer.numGpus,
    gpu_frac: 1,
    gpu_ram: perGpu,
    gpu_total_ram: perGpu * offer.numGpus,
    cpu_name: offer.cpuName,
    cpu_cores: offer.cpuCores,
    cpu_cores_effective: offer.cpuCores,
    cpu_ram: offer.ramGib * 1024, // MiB: exactly the RAM the model and the sim are given

    disk_space: 800,
    dph_base: offer.dphTotal,
    dph_total: offer.dphTotal,
    min_bid: offer.dphTotal / 2,
    reliability: 0.99,
    reliability2: 0.99,
    geolocation: "Simulated, SIM",
  };
}

/** What the market's machine does: its true speed, a host that dies, parameters that never finish. */
export function demoBehaviour(offer: DemoOffer, timeScale: number): MachineBehaviour {
  return {
    speed: offer.trueFactor,
    paramsCommand: offer.quirk === "never-params" ? "sleep 600" : undefined,
    diesAfterMs:
      offer.diesAfterHours === undefined ? undefined : offer.diesAfterHours * 3_600_000 * timeScale,
  };
}

import type { HardwareSpec } from "@cuzkit/core";
import { booleanField, isObject, type JsonObject, numberField, stringField } from "./guards.js";
import { vastDiskToBytes, vastMemoryToBytes } from "./units.js";

/**
 * One offer (a rentable bundle of a machine's GPUs), in our units: bytes for memory and
 * disk, $/hour for prices, 0..1 for reliability. `raw` is the API record as received.
 */
export interface VastOffer {
  /** Offer (ask) id, used to rent it. */
  id: number;
  machineId: number | undefined;
  hostId: number | undefined;
  /** GPU model with spaces, such as "RTX 4090". */
  gpuName: string;
  /** GPUs in the offer. */
  numGpus: number;
  /** Fraction of the machine's GPUs this offer holds (1 = whole machine), when reported. */
  gpuFrac: number | undefined;
  /** VRAM per GPU, bytes. */
  gpuRamBytes: number;
  /** VRAM of all GPUs, bytes (computed from gpuRamBytes when absent). */
  gpuTotalRamBytes: number;
  /** Host RAM as reported (`cpu_ram`), bytes. */
  cpuRamBytes: number;
  /** Host vCPUs. */
  cpuCores: number | undefined;
  /** vCPUs this offer gets (fractional). */
  cpuCoresEffective: number | undefined;
  cpuName: string | undefined;
  /** Disk available, bytes. */
  diskSpaceBytes: number | undefined;
  /** Total price, $/hour (for the searched allocated storage). */
  dphTotal: number;
  /** Minimum interruptible bid, $/hour. */
  minBid: number | undefined;
  /** 0..1. */
  reliability: number | undefined;
  /** "verified", "unverified", "deverified". */
  verification: string | undefined;
  /** Free text such as "Poland, PL". */
  geolocation: string | undefined;
  /** Highest CUDA version the driver supports. */
  cudaMaxGood: number | undefined;
  inetUpMbps: number | undefined;
  inetDownMbps: number | undefined;
  directPortCount: number | undefined;
  rentable: boolean | undefined;
  rented: boolean | undefined;
  /** The API record as received. */
  raw: JsonObject;
}

/**
 * Normalises one API offer record. Returns undefined when a field we rely on (id, gpu_name,
 * num_gpus, gpu_ram, cpu_ram, dph_total) is missing or not a number/string.
 */
export function normaliseOffer(record: unknown): VastOffer | undefined {
  if (!isObject(record)) return undefined;
  const id = numberField(record, "id");
  const gpuName = stringField(record, "gpu_name");
  const numGpus = numberField(record, "num_gpus");
  const gpuRamMib = numberField(record, "gpu_ram");
  const cpuRamMib = numberField(record, "cpu_ram");
  const dphTotal = numberField(record, "dph_total");
  if (
    id === undefined ||
    gpuName === undefined ||
    numGpus === undefined ||
    gpuRamMib === undefined ||
    cpuRamMib === undefined ||
    dphTotal === undefined
  ) {
    return undefined;
  }
  const gpuTotalMib = numberField(record, "gpu_total_ram");
  const diskGb = numberField(record, "disk_space");
  return {
    id,
    machineId: numberField(record, "machine_id"),
    hostId: numberField(record, "host_id"),
    gpuName,
    numGpus,
    gpuFrac: numberField(record, "gpu_frac"),
    gpuRamBytes: vastMemoryToBytes(gpuRamMib),
    gpuTotalRamBytes: vastMemoryToBytes(gpuTotalMib ?? gpuRamMib * numGpus),
    cpuRamBytes: vastMemoryToBytes(cpuRamMib),
    cpuCores: numberField(record, "cpu_cores"),
    cpuCoresEffective: numberField(record, "cpu_cores_effective"),
    cpuName: stringField(record, "cpu_name"),
    diskSpaceBytes: diskGb === undefined ? undefined : vastDiskToBytes(diskGb),
    dphTotal,
    minBid: numberField(record, "min_bid"),
    reliability: numberField(record, "reliability") ?? numberField(record, "reliability2"),
    verification: stringField(record, "verification"),
    geolocation: stringField(record, "geolocation"),
    cudaMaxGood: numberField(record, "cuda_max_good"),
    inetUpMbps: numberField(record, "inet_up"),
    inetDownMbps: numberField(record, "inet_down"),
    directPortCount: numberField(record, "direct_port_count"),
    rentable: booleanField(record, "rentable"),
    rented: booleanField(record, "rented"),
    raw: record,
  };
}

/**
 * The machine an offer gives, as core's HardwareSpec, so `cuzkit tune` can size the daemon
 * before renting.
 *
 * - `ramBytes` = `cpu_ram`.
 * - `usableRamBytes` = `cpu_ram × gpu_frac` when `gpu_frac < 1`. Uncertain: Vast.ai does not
 *   document whether `cpu_ram` of a partial-machine offer is already the share or the whole
 *   host, nor how hard the container limit is; assuming the host value and scaling it down
 *   errs on the safe side. Check the container's cgroup limit after renting.
 * - `cpuThreads` = `cpu_cores_effective` (rounded down, at least 1) when present, else `cpu_cores`.
 * - `gpus` = `num_gpus` × `gpu_name` with `gpu_ram` bytes of VRAM each.
 */
export function offerHardware(offer: VastOffer): HardwareSpec {
  const frac = offer.gpuFrac;
  const usableRamBytes =
    frac !== undefined && frac > 0 && frac < 1 ? Math.floor(offer.cpuRamBytes * frac) : offer.cpuRamBytes;
  const hostThreads = offer.cpuCores !== undefined ? Math.max(1, Math.floor(offer.cpuCores)) : undefined;
  const effective =
    offer.cpuCoresEffective !== undefined && offer.cpuCoresEffective > 0
      ? Math.max(1, Math.floor(offer.cpuCoresEffective))
      : undefined;
  const cpuThreads = effective ?? hostThreads ?? 1;
  const gpuCount = Math.max(0, Math.floor(offer.numGpus));
  return {
    ramBytes: offer.cpuRamBytes,
    usableRamBytes,
    cpuThreads,
    hostCpuThreads: hostThreads ?? cpuThreads,
    gpus: Array.from({ length: gpuCount }, () => ({ model: offer.gpuName, vramBytes: offer.gpuRamBytes })),
  };
}

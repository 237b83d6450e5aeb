/** The hardware an offer advertises, as far as the class needs it. */
export interface ClassHardware {
  gpuName: string;
  numGpus: number;
  /** Host RAM, bytes. */
  cpuRamBytes: number;
  cpuCores: number | undefined;
  cpuName?: string | undefined;
}

const gib = 2 ** 30;

/** RAM tiers, GiB: a machine falls in the highest tier it reaches within 5% (offers say 251 GB for 256). */
export const ramTiersGib = [0, 64, 128, 256, 512, 1024, 2048] as const;

/** The RAM tier's lower bound in GiB, such as 256 for 384 GiB. */
export function ramTierGib(cpuRamBytes: number): number {
  const valueGib = cpuRamBytes / gib;
  let tier: number = ramTiersGib[0];
  for (const t of ramTiersGib) if (valueGib * 1.05 >= t) tier = t;
  return tier;
}

/** CPU core tiers: offers report vCPUs of the host, and a few more or less do not change the class. */
export function cpuCoreTier(cpuCores: number | undefined): number | undefined {
  if (cpuCores === undefined || cpuCores <= 0) return undefined;
  return 2 ** Math.floor(Math.log2(cpuCores));
}

/**
 * The hardware class of an offer: GPU model and count, RAM tier, CPU core tier and CPU model,
 * such as `2x RTX 3090 | 256+ GiB | 32+ cores | AMD EPYC 7302`. Machines of one class share
 * the model's bias (slow memory of a platform, a weak CPU line), so a calibration learnt on
 * one applies to the others.
 */
export function hardwareClassKey(hw: ClassHardware): string {
  const cores = cpuCoreTier(hw.cpuCores);
  const cpu = hw.cpuName?.trim().replace(/\s+/g, " ") || "unknown CPU";
  return [
    `${hw.numGpus}x ${hw.gpuName}`,
    `${ramTierGib(hw.cpuRamBytes)}+ GiB`,
    cores === undefined ? "? cores" : `${cores}+ cores`,
    cpu,
  ].join(" | ");
}

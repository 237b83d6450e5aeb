// GPUs the model knows, with the relative speed factor F (RTX 3090 = 1.00).
// Source: docs/gpu-facts.md section 4. F = SMs x boost clock x INT32 lanes,
// normalised to the RTX 3090; it ignores memory bandwidth and power caps (see its caveats).
// VRAM in GB as NVIDIA sells it (decimal), converted to bytes.

/** One GPU model's facts. */
export interface GpuModelInfo {
  /** Canonical name, as nvidia-smi prints it without the vendor prefix ("RTX 3090"). */
  readonly name: string;
  /** Relative MSM/NTT speed, RTX 3090 = 1.00 (derived, medium confidence). */
  readonly speedFactor: number;
  /** VRAM in bytes. */
  readonly vramBytes: number;
  /** Architecture name. */
  readonly arch: string;
}

const GB = 1e9;
const rows: [string, number, number, string][] = [
  ["RTX 2080 Ti", 0.76, 11, "Turing"],
  ["T4", 0.46, 16, "Turing"],
  ["V100", 0.88, 16, "Volta"],
  ["RTX 3080", 0.84, 10, "Ampere"],
  ["RTX 3090", 1.0, 24, "Ampere"],
  ["RTX A4000", 0.54, 16, "Ampere"],
  ["RTX A5000", 0.78, 24, "Ampere"],
  ["RTX A6000", 1.09, 48, "Ampere"],
  ["A40", 1.05, 48, "Ampere"],
  ["A10", 0.88, 24, "Ampere"],
  ["A100", 1.1, 80, "Ampere"],
  ["RTX 4070", 0.82, 12, "Ada"],
  ["RTX 4080", 1.37, 16, "Ada"],
  ["RTX 4090", 2.32, 24, "Ada"],
  ["L40", 2.54, 48, "Ada"],
  ["L40S", 2.57, 48, "Ada"],
  ["H100 PCIe", 1.44, 80, "Hopper"],
  ["H100", 1.88, 80, "Hopper"],
  ["H200", 1.88, 141, "Hopper"],
  ["RTX 5070 Ti", 1.23, 16, "Blackwell"],
  ["RTX 5080", 1.58, 16, "Blackwell"],
  ["RTX 5090", 2.94, 32, "Blackwell"],
];

/** Every GPU model the model has a speed factor for. */
export const gpuCatalog: readonly GpuModelInfo[] = rows.map(([name, speedFactor, vramGb, arch]) => ({
  name,
  speedFactor,
  vramBytes: vramGb * GB,
  arch,
}));

/** Speed factor assumed for a GPU the catalog does not know (a mid-range card). */
export const unknownGpuSpeedFactor = 0.8;

function squash(text: string): string {
  return text.toLowerCase().replace(/nvidia|geforce|tesla|quadro|graphics|[\s_-]/g, "");
}

// Longest names first so "RTX 5070 Ti" wins over a shorter prefix and "H100 PCIe" over "H100".
const byLength = gpuCatalog
  .map((gpu) => ({ gpu, key: squash(gpu.name) }))
  .sort((a, b) => b.key.length - a.key.length);
// The model asks for every GPU of every machine it evaluates: remember the answers.
const lookups = new Map<string, GpuModelInfo | undefined>();

/**
 * Finds a GPU model from the way nvidia-smi, Vast.ai or a person writes it:
 * "NVIDIA GeForce RTX 3090", "RTX_3090", "rtx3090", "A40", "H100 SXM5 80GB".
 */
export function findGpuModel(text: string): GpuModelInfo | undefined {
  if (lookups.has(text)) return lookups.get(text);
  const key = squash(text).replace(/\d+gb$/, "");
  const found =
    key === ""
      ? undefined
      : (byLength.find((entry) => key === entry.key) ?? byLength.find((entry) => key.includes(entry.key)))
          ?.gpu;
  if (lookups.size < 1000) lookups.set(text, found);
  return found;
}

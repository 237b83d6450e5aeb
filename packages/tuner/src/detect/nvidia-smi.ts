import { findGpuModel, type GpuSpec, MiB } from "@cuzkit/core";
import type { ResolvedDetectOptions } from "./system.js";
import type { Reading } from "./types.js";

/** The query detectHardware() runs. */
export const nvidiaSmiArgs = [
  "--query-gpu=index,name,memory.total",
  "--format=csv,noheader,nounits",
] as const;

/** GPUs parsed from nvidia-smi output, with lines that could not be read. */
export interface ParsedGpus {
  gpus: GpuSpec[];
  /** One note per line that was skipped or value that was assumed. */
  notes: string[];
}

const notAvailable = /^\[?(n\/a|not supported|unknown error)\]?$/i;

/**
 * Parses `nvidia-smi --query-gpu=index,name,memory.total --format=csv,noheader,nounits`:
 * one "0, NVIDIA GeForce RTX 3090, 24576" line per GPU (memory in MiB). Tolerates extra
 * spaces, "[N/A]" values (the catalog's VRAM is used when the model is known) and garbage lines.
 */
export function parseNvidiaSmiCsv(text: string): ParsedGpus {
  const gpus: GpuSpec[] = [];
  const notes: string[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === "") continue;
    const fields = line.split(",").map((field) => field.trim());
    if (fields.length < 3 || !/^\d+$/.test(fields[0] ?? "")) {
      notes.push(
        `nvidia-smi: skipped a line that is not "index, name, memory": ${JSON.stringify(line.slice(0, 80))}`,
      );
      continue;
    }
    const memoryText = fields[fields.length - 1] ?? "";
    const nameText = fields.slice(1, -1).join(",").replace(/\s+/g, " ").trim();
    const name = nameText === "" || notAvailable.test(nameText) ? "unknown GPU" : nameText;
    const known = findGpuModel(name);
    const model = known?.name ?? name.replace(/^nvidia\s+/i, "");
    let vramBytes: number;
    const mib = /^\d+(\.\d+)?$/.test(memoryText) ? Number(memoryText) : undefined;
    if (mib !== undefined && mib > 0) {
      vramBytes = Math.round(mib * MiB);
    } else if (known) {
      vramBytes = known.vramBytes;
      notes.push(
        `nvidia-smi: GPU ${fields[0]} memory is ${JSON.stringify(memoryText)}; assumed ${known.name}'s ${known.vramBytes / 1e9} GB`,
      );
    } else {
      vramBytes = 0;
      notes.push(
        `nvidia-smi: GPU ${fields[0]} memory is ${JSON.stringify(memoryText)} and the model is unknown; VRAM unknown`,
      );
    }
    gpus.push({ model, vramBytes });
  }
  return { gpus, notes };
}

/** Runs nvidia-smi and reads the GPUs; never throws (no nvidia-smi, a failing driver or garbage give no GPU and a note). */
export async function queryGpus(
  options: ResolvedDetectOptions,
): Promise<{ reading: Reading<GpuSpec[]>; notes: string[] }> {
  let result: Awaited<ReturnType<ResolvedDetectOptions["runCommand"]>>;
  try {
    result = await options.runCommand("nvidia-smi", nvidiaSmiArgs);
  } catch (error) {
    const code = (error as { code?: unknown } | undefined)?.code;
    if (code === "ENOENT") {
      return {
        reading: { value: [], source: "nvidia-smi not found" },
        notes: ["nvidia-smi is not installed or not on PATH: no GPU assumed"],
      };
    }
    const message = error instanceof Error ? error.message : String(error);
    return {
      reading: { value: [], source: "nvidia-smi could not run" },
      notes: [`nvidia-smi could not run (${message.split("\n")[0]}): no GPU assumed`],
    };
  }
  if (result.exitCode !== 0) {
    const first = (result.stderr.trim() || result.stdout.trim()).split("\n")[0] ?? "";
    return {
      reading: { value: [], source: `nvidia-smi failed (exit ${result.exitCode})` },
      notes: [
        `nvidia-smi failed with exit ${result.exitCode}${first ? `: ${first.slice(0, 160)}` : ""}; no GPU assumed`,
      ],
    };
  }
  const parsed = parseNvidiaSmiCsv(result.stdout);
  return { reading: { value: parsed.gpus, source: "nvidia-smi" }, notes: parsed.notes };
}

import { findGpuModel, GiB, type HardwareSpec, unknownGpuSpeedFactor } from "@cuzkit/core";

// The independent yardstick of pnpm bench:tuner: the measured numbers themselves, read from
// the references (docs/gpu-facts.md section 1, docs/daemon-facts.md section 4),
// not the model's formulas. Everything was measured on one box: 1x RTX 5070 Ti, 192 threads
// of Zen4, 8-channel DDR5, 512 GiB.

/** Peak RSS by partitions synthesizing at once (upper end where a range was measured), GiB. */
export const measuredPeakGiB: readonly [number, number][] = [
  [1, 104],
  [2, 109],
  [3, 129],
  [4, 149],
  [5, 169],
  [6, 189],
  [7, 209],
  [10, 310],
  [12, 400],
  [14, 457],
  [16, 510],
];

/** Seconds per PoRep proof by partition_workers (5 proofs in flight); 14-16 "gave nothing more" than 12. */
export const measuredSecPerProof: readonly [number, number][] = [
  [1, 290],
  [2, 152],
  [5, 68.4],
  [7, 53.3],
  [10, 45.4],
  [12, 42.5],
  [14, 42.5],
  [16, 42.5],
];

/** Best measured seconds per proof with the 5070 Ti fed (pw 12, 20 proofs in flight): the GPU-bound floor. */
export const measuredGpuFloorSec = 37.7;
const anchorSpeedFactor = 1.23;
const pceExtractionGiB = 14;
const slopeAboveGiB = (510 - 209) / 9;

function interpolate(points: readonly [number, number][], x: number): number {
  const first = points[0] as [number, number];
  if (x <= first[0]) return first[1];
  for (let i = 1; i < points.length; i++) {
    const [x1, y1] = points[i] as [number, number];
    const [x0, y0] = points[i - 1] as [number, number];
    if (x <= x1) return y0 + ((y1 - y0) * (x - x0)) / (x1 - x0);
  }
  return (points[points.length - 1] as [number, number])[1];
}

/** Most partitions the envelope was measured at. */
export const maxMeasuredPartitions = 16;

/**
 * Peak bytes of `partitions` synthesizing at once under the measured envelope, plus the
 * 14 GiB PCE extraction for a daemon that re-extracts at every start (budget). Above 16,
 * extended at the average measured slope from 7 to 16 (flagged by the caller).
 */
export function envelopePeakBytes(partitions: number, reExtractsPce: boolean): number {
  const p = Math.max(1, partitions);
  const gib =
    p <= maxMeasuredPartitions
      ? interpolate(measuredPeakGiB, p)
      : 510 + (p - maxMeasuredPartitions) * slopeAboveGiB;
  return (gib + (reExtractsPce ? pceExtractionGiB : 0)) * GiB;
}

/**
 * Proofs/hour the measured curve gives `partitions` on `hw`: the measured seconds per proof
 * (interpolated in proofs/hour; flat above 12, as measured), with partitions beyond one per
 * physical core not counted, and never faster than the measured GPU-bound floor scaled to
 * this machine's GPUs by their speed factor.
 */
export function envelopeProofsPerHour(hw: HardwareSpec, partitions: number): number {
  if (hw.gpus.length === 0 || partitions < 1) return 0;
  const p = Math.min(partitions, Math.max(1, Math.floor(hw.cpuThreads / 2)));
  const perHour = interpolate(
    measuredSecPerProof.map(([x, sec]) => [x, 3600 / sec] as [number, number]),
    p,
  );
  const factor = Math.min(
    ...hw.gpus.map((gpu) => findGpuModel(gpu.model)?.speedFactor ?? unknownGpuSpeedFactor),
  );
  const floorSec = (measuredGpuFloorSec * anchorSpeedFactor) / factor / hw.gpus.length;
  return Math.min(perHour, 3600 / floorSec);
}

import type { ThroughputCalibration } from "@cuzkit/tuner";

/** One measured rate next to what the model predicted for the same machine. */
export interface RateSample {
  classKey: string;
  machineId: number | undefined;
  /** Measured proofs/hour (a benchmark, or production reported by the agent). */
  measuredProofsPerHour: number;
  /** The tuner's uncalibrated proofs/hour for the same offer. */
  predictedProofsPerHour: number;
}

/** What the fleet learnt about one hardware class. */
export interface ClassCalibration {
  classKey: string;
  /** Geometric mean of measured / predicted. */
  factor: number;
  /** Standard deviation of ln(measured / predicted) across the samples (0 with one sample). */
  spreadLog: number;
  /** Samples behind the factor. */
  samples: number;
  /** Distinct machines behind the factor. */
  machines: number;
}

/**
 * Learns the ratio of measured to predicted proofs/hour per hardware class. Ratios are
 * averaged in log space, so a machine at half the model and one at double cancel out, and
 * one outlier does not dominate. Samples without a positive prediction and measurement are
 * skipped (a FAILED run measures nothing).
 */
export function learnCalibration(samples: readonly RateSample[]): Map<string, ClassCalibration> {
  const byClass = new Map<string, { logs: number[]; machines: Set<number | string> }>();
  for (const s of samples) {
    if (!(s.measuredProofsPerHour > 0) || !(s.predictedProofsPerHour > 0)) continue;
    const entry = byClass.get(s.classKey) ?? { logs: [], machines: new Set() };
    entry.logs.push(Math.log(s.measuredProofsPerHour / s.predictedProofsPerHour));
    entry.machines.add(s.machineId ?? `?${entry.logs.length}`);
    byClass.set(s.classKey, entry);
  }
  const out = new Map<string, ClassCalibration>();
  for (const [classKey, { logs, machines }] of byClass) {
    const mean = logs.reduce((a, b) => a + b, 0) / logs.length;
    const variance = logs.length > 1 ? logs.reduce((a, b) => a + (b - mean) ** 2, 0) / (logs.length - 1) : 0;
    out.set(classKey, {
      classKey,
      factor: Math.exp(mean),
      spreadLog: Math.sqrt(variance),
      samples: logs.length,
      machines: machines.size,
    });
  }
  return out;
}

/** The class calibration as the tuner's `recommend({ calibration })` input. */
export function toTunerCalibration(c: ClassCalibration): ThroughputCalibration {
  return { proofsPerHourFactor: c.factor, samples: c.samples, source: `fleet: ${c.classKey}` };
}

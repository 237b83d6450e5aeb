import type { RateSample } from "./calibration.js";
import type { DeathExposure } from "./death-hazard.js";

/** The priors of the learning fleet, fitted from history rather than assumed. */
export interface FittedPriors {
  /** How wrong the bare model is on a class never measured, log-ratio standard deviation. */
  modelSpreadLog: number;
  /** Machine-to-machine spread inside a class, log-ratio (the ranking's class floor). */
  classSpreadLog: number;
  /** Deaths per rented hour over the history. */
  hazardPerHour: number;
  /** Machines and rented hours behind the fit. */
  machines: number;
  rentedHours: number;
}

/**
 * Fits the priors from measurements (a store's history, or calibration days): the model's
 * spread is the root mean square of each machine's ln(measured/predicted) (the model is the
 * centre); the class spread is the pooled standard deviation of machines within their class;
 * the hazard is deaths over rented hours. Falls back to `fallback` where the history is too
 * thin (fewer than 3 machines, fewer than 2 in any class).
 */
export function fitPriors(
  samples: readonly RateSample[],
  exposure: DeathExposure,
  fallback: { modelSpreadLog: number; classSpreadLog: number } = {
    modelSpreadLog: 0.35,
    classSpreadLog: 0.1,
  },
): FittedPriors {
  const perMachine = new Map<string, { classKey: string; logs: number[] }>();
  for (const s of samples) {
    if (!(s.measuredProofsPerHour > 0) || !(s.predictedProofsPerHour > 0)) continue;
    const id = `${s.classKey}#${s.machineId ?? perMachine.size}`;
    const m = perMachine.get(id) ?? { classKey: s.classKey, logs: [] };
    m.logs.push(Math.log(s.measuredProofsPerHour / s.predictedProofsPerHour));
    perMachine.set(id, m);
  }
  const machineLogs = [...perMachine.values()].map((m) => ({
    classKey: m.classKey,
    log: m.logs.reduce((a, b) => a + b, 0) / m.logs.length,
  }));
  const modelSpreadLog =
    machineLogs.length >= 3
      ? Math.sqrt(machineLogs.reduce((a, m) => a + m.log ** 2, 0) / machineLogs.length)
      : fallback.modelSpreadLog;
  const byClass = new Map<string, number[]>();
  for (const m of machineLogs) byClass.set(m.classKey, [...(byClass.get(m.classKey) ?? []), m.log]);
  let squares = 0;
  let freedom = 0;
  for (const logs of byClass.values()) {
    if (logs.length < 2) continue;
    const mean = logs.reduce((a, b) => a + b, 0) / logs.length;
    squares += logs.reduce((a, b) => a + (b - mean) ** 2, 0);
    freedom += logs.length - 1;
  }
  return {
    modelSpreadLog,
    classSpreadLog: freedom > 0 ? Math.sqrt(squares / freedom) : fallback.classSpreadLog,
    hazardPerHour: exposure.rentedHours > 0 ? exposure.deaths / exposure.rentedHours : 0,
    machines: machineLogs.length,
    rentedHours: exposure.rentedHours,
  };
}

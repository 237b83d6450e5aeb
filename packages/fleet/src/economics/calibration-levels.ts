import type { ClassCalibration, RateSample } from "./calibration.js";

/** The coarser levels of a class key (`2x RTX 3090 | 256+ GiB | 32+ cores | CPU`): GPU model, then GPUs and RAM tier. */
export function classLevels(classKey: string): { gpuModel: string; gpuAndRam: string } {
  const [gpus = "", ram = ""] = classKey.split(" | ");
  return { gpuModel: gpus.replace(/^\d+x\s*/, ""), gpuAndRam: `${gpus} | ${ram}` };
}

/** Options of {@link levelledCalibration}. */
export interface LevelledCalibrationOptions {
  /** Weight, in machines, of the coarser level's mean when shrinking a finer one toward it. Default 1. */
  priorMachines?: number | undefined;
}

interface Level {
  logs: number[];
}

/**
 * Calibration at coarser levels when a class is thin: the ratio measured/predicted is learnt
 * per GPU model (shrunk toward the model, x1), per GPUs and RAM tier (shrunk toward its GPU
 * model's), and per full class (shrunk toward its tier's), each machine one vote (its runs'
 * geometric mean), so a class with one machine borrows from the machines of the same GPU. Gives
 * an entry for every class in `classKeys` that any level has measured; `samples` is the
 * machines behind the finest level used, and `spreadLog` the spread of that level's machines.
 */
export function levelledCalibration(
  samples: readonly RateSample[],
  classKeys: Iterable<string>,
  options: LevelledCalibrationOptions = {},
): Map<string, ClassCalibration> {
  const k = options.priorMachines ?? 1;
  const perMachine = new Map<string, { classKey: string; logs: number[] }>();
  for (const s of samples) {
    if (!(s.measuredProofsPerHour > 0) || !(s.predictedProofsPerHour > 0)) continue;
    const id = `${s.classKey}#${s.machineId ?? perMachine.size}`;
    const m = perMachine.get(id) ?? { classKey: s.classKey, logs: [] };
    m.logs.push(Math.log(s.measuredProofsPerHour / s.predictedProofsPerHour));
    perMachine.set(id, m);
  }
  const byModel = new Map<string, Level>();
  const byTier = new Map<string, Level>();
  const byClass = new Map<string, Level>();
  const add = (map: Map<string, Level>, key: string, log: number) => {
    const level = map.get(key) ?? { logs: [] };
    level.logs.push(log);
    map.set(key, level);
  };
  for (const m of perMachine.values()) {
    const log = m.logs.reduce((a, b) => a + b, 0) / m.logs.length;
    const { gpuModel, gpuAndRam } = classLevels(m.classKey);
    add(byModel, gpuModel, log);
    add(byTier, gpuAndRam, log);
    add(byClass, m.classKey, log);
  }
  const shrink = (level: Level | undefined, prior: number) =>
    level === undefined
      ? prior
      : (level.logs.reduce((a, b) => a + b, 0) + k * prior) / (level.logs.length + k);
  const spread = (level: Level) => {
    if (level.logs.length < 2) return 0;
    const mean = level.logs.reduce((a, b) => a + b, 0) / level.logs.length;
    return Math.sqrt(level.logs.reduce((a, b) => a + (b - mean) ** 2, 0) / (level.logs.length - 1));
  };
  const out = new Map<string, ClassCalibration>();
  for (const classKey of classKeys) {
    if (out.has(classKey)) continue;
    const { gpuModel, gpuAndRam } = classLevels(classKey);
    const model = byModel.get(gpuModel);
    if (model === undefined) continue;
    const tier = byTier.get(gpuAndRam);
    const cls = byClass.get(classKey);
    const log = shrink(cls, shrink(tier, shrink(model, 0)));
    const finest = cls ?? tier ?? model;
    out.set(classKey, {
      classKey,
      factor: Math.exp(log),
      spreadLog: spread(finest),
      samples: finest.logs.length,
      machines: finest.logs.length,
    });
  }
  return out;
}

import { cuzkConfigKeys, type DaemonConfig, type DaemonDialect, toCuzkSize } from "@cuzkit/core";

/** cuzk.toml as sections of keys, named exactly as the daemon reads them: `{ memory: { total_budget: "225GiB" } }`. */
export type CuzkTomlSections = Record<string, Record<string, string | number | boolean>>;

/** Extra keys outside the model's config that the emitter may write. */
export interface SectionExtras {
  /** daemon.listen, written only when given. */
  listen?: string | undefined;
}

/**
 * The cuzk.toml keys for `config`, limited to the keys `dialect` reads (core's cuzkConfigKeys
 * table), so the daemon warns about nothing and ignores nothing. Sizes are strict integer GiB.
 */
export function toCuzkSections(
  config: DaemonConfig,
  dialect: DaemonDialect,
  extras: SectionExtras = {},
): CuzkTomlSections {
  const flat: [string, string | number | boolean][] = [
    ["daemon.listen", extras.listen ?? ""],
    [
      "memory.total_budget",
      config.totalBudgetBytes === "auto" ? "auto" : toCuzkSize(config.totalBudgetBytes),
    ],
    ["gpus.gpu_workers_per_device", config.gpuWorkersPerDevice],
    ["gpus.gpu_threads", config.gpuThreads],
    ["synthesis.threads", config.synthesisThreads],
    ["synthesis.partition_workers", config.partitionWorkers],
    ["pipeline.enabled", config.pipelineEnabled],
    ["pipeline.synthesis_concurrency", config.synthesisConcurrency],
    ["pipeline.max_parallel_synthesis", config.maxParallelSynthesis],
    ["scheduler.max_batch_size", config.maxBatchSize],
  ];
  const sections: CuzkTomlSections = {};
  for (const [key, value] of flat) {
    if (key === "daemon.listen" && extras.listen === undefined) continue;
    if (!cuzkConfigKeys[key]?.readBy.includes(dialect)) continue;
    const [section, name] = key.split(".") as [string, string];
    sections[section] ??= {};
    sections[section][name] = value;
  }
  return sections;
}

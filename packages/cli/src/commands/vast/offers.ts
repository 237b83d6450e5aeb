import { workloadPresets } from "@cuzkit/core";
import { type Command, Option } from "commander";
import { vastHelpDefaults } from "../../help-defaults.js";
import type { VastContext } from "./context.js";

/** The flags of `cuzkit vast offers`, as commander parses them. */
export interface OffersFlags {
  query?: string;
  gpu?: string;
  numGpus?: string;
  minRam?: string;
  minGpuRam?: string;
  minCpus?: string;
  maxPrice?: string;
  minReliability?: string;
  minCuda?: string;
  type: string;
  disk: string;
  includeUnverified?: boolean;
  limit: string;
  order: string;
  workload: string;
  json?: boolean;
}

const queryHelp = `
Query (--query), in vast-cli's syntax: FIELD OP VALUE pairs separated by spaces, quoted as one argument.
  OP: = == != < <= > >=, or the words eq neq gt gte lt lte in notin
  in/notin take a list: geolocation in [TW,SE]; "_" stands for a space: gpu_name=RTX_4090
  gpu_ram, gpu_total_ram: the card class in GB (24 = a 24 GB card, within 7 %)
  cpu_ram: GB as vast-cli sends it (x 1000 MiB); disk_space: GB; duration: days
  FIELD=any drops a default (verified=any)
  Example: cuzkit vast offers --query 'gpu_ram>=24 num_gpus=2 reliability>0.99'
Flags add to the query and win on the same field. Sizes need a unit: --min-gpu-ram 24GiB.
The Fits / Proofs/h / $/1k proofs columns are the tuner's model for --workload (not a benchmark).`;

/** `cuzkit vast offers`: search, with the tuner's prediction for each offer. */
export function addOffersCommand(vast: Command, ctx: VastContext): void {
  vast
    .command("offers")
    .description("search rentable offers (verified, rentable, not rented by default)")
    .option("--query <query>", "a vast-cli query, such as 'gpu_ram>=24 num_gpus=2 reliability>0.99'")
    .option("--gpu <names>", 'GPU model, or several comma-separated ("RTX 4090,RTX 3090" or RTX_4090)')
    .option("--num-gpus <n>", "exact number of GPUs")
    .option("--min-ram <size>", 'minimum host RAM, with a unit, such as "256GiB"')
    .option(
      "--min-gpu-ram <size>",
      'minimum VRAM per GPU, with a unit, such as "24GiB" (matches the card class)',
    )
    .option("--min-cpus <n>", "minimum CPU threads the offer gets (cpu_cores_effective)")
    .option("--max-price <usd>", "maximum total price, $/hour")
    .option("--min-reliability <fraction>", "minimum reliability, 0..1, such as 0.98")
    .option("--min-cuda <version>", "minimum CUDA version the driver supports, such as 12.4")
    .addOption(
      new Option("--type <type>", "rental type")
        .choices(["on-demand", "bid", "reserved"])
        .default("on-demand"),
    )
    .option("--disk <gb>", "disk you will rent, in GB (prices include it)", String(vastHelpDefaults.diskGb))
    .option("--include-unverified", "also list unverified machines")
    .option("--limit <n>", "most offers to show", "20")
    .option(
      "--order <fields>",
      'sort keys, comma-separated, each FIELD[:asc|desc] or vast-cli\'s FIELD- ("dph_total", "reliability:desc", "num_gpus-")',
      "score:desc",
    )
    .addOption(
      new Option("--workload <workload>", "workload the prediction columns model, or none to skip them")
        .choices([...Object.keys(workloadPresets), "none"])
        .default("porep"),
    )
    .option("--json", "print JSON instead of a table")
    .addHelpText("after", queryHelp)
    // The Vast client and the tuner load only when the command runs.
    .action(async (opts: OffersFlags, command: Command) =>
      (await import("./offers-run.js")).runOffers(ctx, opts, command),
    );
}

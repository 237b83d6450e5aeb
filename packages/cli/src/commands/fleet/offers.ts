import type { Command } from "commander";
import { colourEnabled } from "../../colour.js";
import { wholeNumberOption } from "../../parse.js";
import { createTable } from "../../table.js";
import { type FleetContext, fleetLib } from "./context.js";
import { addConfigOptions, addStoreOptions, type ConfigFlags } from "./flags.js";

/** `cuzkit fleet offers`: the Vast search ranked by $ per 1000 proofs, with every estimate. */
export function addOffersCommand(fleet: Command, ctx: FleetContext): void {
  addConfigOptions(addStoreOptions(fleet.command("offers")))
    .description(
      "search Vast and rank the offers by $ per 1000 proofs: modelled, class-corrected and measured proofs/hour",
    )
    .option("--limit <n>", "offers to show (default 20)", wholeNumberOption("--limit", 1))
    .option("--json", "print the ranking and the excluded offers as JSON")
    .addHelpText(
      "after",
      `
Ranking: each offer's rate is this machine's measurements, else the model corrected by its
hardware class's calibration, else the model. Offers are sorted by $ per 1000 proofs at an
optimistic rate (estimate x exp(spread)): an unmeasured offer is tried only while its best case
beats what is known ("worth trying"); every benchmark narrows its class's spread. Machines that
failed, were unstable or measured below their keep minimum are left out (--json says why).
KEEP AT is the rate an offer must measure to be kept: --min-proofs-per-hour, or with
--max-usd-per-1000-proofs its $/h x 1000 / that ceiling (the higher of the two when both are given).`,
    )
    .action(async (flags: ConfigFlags & { limit?: number; json?: boolean }) =>
      ctx.withStore(
        flags,
        async (store) => {
          const manager = await ctx.managerFor(flags, store);
          const { offerView, excludedOfferView } = await fleetLib();
          const { ranked, excluded } = await manager.rankAll();
          // The same fields as the dashboard's /api/offers.
          const rows = ranked.slice(0, flags.limit ?? 20).map(offerView);
          if (flags.json) {
            ctx.print(JSON.stringify({ offers: rows, excluded: excluded.map(excludedOfferView) }, null, 2));
            return;
          }
          const table = createTable(
            [
              "OFFER",
              "GPUS",
              "PREDICTED",
              "CORRECTED",
              "MEASURED (N)",
              "USED",
              "$/H",
              "$/1K PROOFS",
              "OPTIMISTIC",
              "RELIAB.",
              "KEEP AT",
              "",
            ],
            { colour: colourEnabled(ctx.io.stdout, ctx.io.env) },
          );
          const f = (x: number | null) => (x === null ? "-" : x.toFixed(1));
          for (const r of rows) {
            table.push([
              r.offerId,
              `${r.numGpus}x ${r.gpuName}`,
              f(r.predictedProofsPerHour),
              f(r.correctedProofsPerHour),
              r.measuredProofsPerHour === null ? "-" : `${f(r.measuredProofsPerHour)} (${r.measuredRuns})`,
              r.source,
              `${r.dphPerHour.toFixed(3)}${r.interruptible ? " bid" : ""}`,
              r.costPer1000.toFixed(2),
              r.optimisticCostPer1000.toFixed(2),
              r.reliability.toFixed(2),
              f(r.keepMinimumProofsPerHour),
              r.worthTrying ? "worth trying" : "",
            ]);
          }
          ctx.print(rows.length === 0 ? "no offers fit" : table.toString());
          if (excluded.length > 0) ctx.print(`${excluded.length} offer(s) left out; --json says why`);
        },
        "read-or-empty",
      ),
    );
}

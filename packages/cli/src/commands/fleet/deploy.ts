import { InvalidInputError } from "@cuzkit/core";
import type { Command } from "commander";
import { wholeNumberOption } from "../../parse.js";
import type { FleetContext } from "./context.js";
import {
  addConfigOptions,
  addLeaseOptions,
  addStoreOptions,
  type ConfigFlags,
  type LeaseFlags,
} from "./flags.js";
import { statusRow } from "./rows.js";

/** `cuzkit fleet deploy`: rent one offer or the best N. */
export function addDeployCommand(fleet: Command, ctx: FleetContext): void {
  addLeaseOptions(addConfigOptions(addStoreOptions(fleet.command("deploy"))))
    .description(
      "rent an offer (--offer ID) or the best N (--best N); the agent on it reports to `fleet serve`",
    )
    .option("--offer <id>", "the offer to rent", wholeNumberOption("--offer", 1))
    .option(
      "--best <n>",
      "rent the N best-ranked offers (the ranking of `fleet offers`)",
      wholeNumberOption("--best", 1),
    )
    .option("--replaces <instance>", "the instance this one replaces: refused until it is destroyed")
    .option("--json", "print the instances as JSON")
    .action(
      async (
        flags: ConfigFlags &
          LeaseFlags & { offer?: number; best?: number; replaces?: string; json?: boolean },
      ) => {
        if ((flags.offer === undefined) === (flags.best === undefined)) {
          throw new InvalidInputError("deploy needs exactly one of --offer ID or --best N", {
            hint: "pass --offer 1234 or --best 2",
          });
        }
        await ctx.withStore(flags, (opened, keep) =>
          ctx.withLease(flags, opened, async (store) => {
            await ctx.checkRentingManagerUrl(flags, store);
            keep(); // from here on it may rent: the store keeps the record whatever follows
            const manager = await ctx.managerFor(flags, store);
            const records =
              flags.offer !== undefined
                ? [await manager.deploy(flags.offer, { replaces: flags.replaces })]
                : await manager.deployBest(flags.best as number);
            const now = Date.now();
            if (flags.json) {
              ctx.print(
                JSON.stringify(
                  records.map((r) => statusRow(r, now)),
                  null,
                  2,
                ),
              );
              return;
            }
            for (const r of records)
              ctx.print(
                `${r.id} ${r.state} vast ${r.vastId ?? "-"} offer ${r.offerId} $${r.dphPerHour.toFixed(3)}/h`,
              );
          }),
        );
      },
    );
}

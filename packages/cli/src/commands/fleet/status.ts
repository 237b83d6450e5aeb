import type { Command } from "commander";
import { colourEnabled } from "../../colour.js";
import { createTable } from "../../table.js";
import { type FleetContext, fleetLib } from "./context.js";
import { addStoreOptions, type StoreFlags } from "./flags.js";
import { statusRow } from "./rows.js";

const minutes = (ms: number) => `${Math.max(0, Math.round(ms / 60_000))}m`;

/** `cuzkit fleet status`: instances by state. */
export function addStatusCommand(fleet: Command, ctx: FleetContext): void {
  addStoreOptions(fleet.command("status"))
    .description("instances by state: phase, elapsed / deadline, measured proofs/hour, $/h")
    .option("--json", "print JSON")
    .option("--all", "include destroyed instances")
    .action(async (flags: StoreFlags & { json?: boolean; all?: boolean }) =>
      ctx.withStore(
        flags,
        async (store) => {
          const { instanceStates, latestCurioRates, curioRatesText, curioIdentityIssues } = await fleetLib();
          const curio = latestCurioRates(await store.performance.list());
          const now = Date.now();
          const records = (await store.list())
            .filter((r) => r.fleet === flags.fleet && (flags.all || r.state !== "destroyed"))
            .sort((a, b) => instanceStates.indexOf(a.state) - instanceStates.indexOf(b.state));
          const identity = await curioIdentityIssues(store, records);
          const rows = records.map((r) => statusRow(r, now, curio.get(r.id), identity.get(r.id)));
          if (flags.json) {
            ctx.print(
              JSON.stringify(
                { fleet: flags.fleet, counts: await store.countByState(), instances: rows },
                null,
                2,
              ),
            );
            return;
          }
          const table = createTable(
            ["ID", "STATE", "VAST", "GPUS", "ELAPSED/DEADLINE", "PROOFS/H", "CURIO/H", "$/H", "REASON"],
            { colour: colourEnabled(ctx.io.stdout, ctx.io.env) },
          );
          for (const r of rows) {
            table.push([
              r.id,
              r.destroyManually
                ? `${r.state} (DESTROY MANUALLY: vast ${r.vastId})`
                : r.curioDrain === null
                  ? r.state
                  : r.curioDrain.state === "draining"
                    ? `${r.state} (CURIO DRAINING: node ${r.curioDrain.curioMachineId}${r.curioDrain.deadlineAt === null ? "" : ` until ${new Date(r.curioDrain.deadlineAt).toISOString()}`})`
                    : `${r.state} (CURIO CORDONED: node ${r.curioDrain.curioMachineId}, uncordon pending)`,
              r.vastId ?? "-",
              r.gpus,
              r.deadlineMs === null
                ? minutes(r.elapsedMs)
                : `${minutes(r.elapsedMs)}/${minutes(r.deadlineMs)}`,
              // The basis is shown where it is not the benchmark: on probation, or measured production.
              r.proofsPerHour === null
                ? "-"
                : `${r.proofsPerHour.toFixed(1)}${r.rateBasis === "benchmark" ? "" : ` (${r.rateBasis})`}`,
              r.curioIdentityIssue === null
                ? curioRatesText(r.curioProduction)
                : `NODE AMBIGUOUS: ${r.curioIdentityIssue}`,
              r.dphPerHour.toFixed(3),
              r.reason ?? "",
            ]);
          }
          ctx.print(rows.length === 0 ? "no instances" : table.toString());
          // Who writes to the fleet now (a running serve or run), so a refused command's cause is in view.
          const writer = await store.writerLease({ fleet: flags.fleet }).current();
          if (writer !== undefined && writer.expiresAt > now) {
            ctx.print(
              `writer: ${writer.holder} (epoch ${writer.epoch}, lease until ${new Date(writer.expiresAt).toISOString()})`,
            );
          }
        },
        "read",
      ),
    );
}

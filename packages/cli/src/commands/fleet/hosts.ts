import type { ExclusionPolicy, MachineReport, MachinesReport } from "@cuzkit/fleet";
import type { Command } from "commander";
import { colourEnabled } from "../../colour.js";
import { wholeNumberOption } from "../../parse.js";
import { createTable } from "../../table.js";
import { type FleetContext, fleetLib } from "./context.js";
import { addLeaseOptions, addStoreOptions, type LeaseFlags, type StoreFlags } from "./flags.js";

interface HostsFlags extends StoreFlags, LeaseFlags {
  json?: boolean;
  excluded?: boolean;
  lift?: number;
  reason?: string;
}

const percent = (rate: number) => `${(rate * 100).toFixed(1)}%`;
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");

/** What the STATUS column says of a machine. */
function statusText(m: MachineReport): string {
  if (!m.excluded) return "ok";
  return m.excludedUntil === undefined ? "excluded until lifted" : `excluded until ${iso(m.excludedUntil)}`;
}

/** The machines as a table, the evidence of each excluded one, and the fleet's failure rate. */
function hostsTable(report: MachinesReport, machines: MachineReport[], colour: boolean): string {
  const table = createTable(
    ["MACHINE", "HOST", "RENTALS", "FAILURES", "FAIL RATE", "HOST RATE", "STATUS", "REASON"],
    { colour },
  );
  for (const m of machines) {
    table.push([
      m.machineId,
      m.hostId ?? "-",
      m.rentals,
      m.failures,
      percent(m.failureRate),
      percent(m.hostFailureRate),
      statusText(m),
      m.exclusionReason ?? "",
    ]);
  }
  const lines = [table.toString()];
  for (const m of machines.filter((x) => x.excluded)) {
    lines.push(`machine ${m.machineId} evidence (lift: cuzkit fleet hosts --lift ${m.machineId}):`);
    for (const e of m.evidence) {
      const counts = e.counts ? "counts" : "not the machine's";
      lines.push(`  ${iso(e.at)}  ${e.kind} (${counts})  ${e.instanceId ?? "-"}  ${e.reason}`);
    }
  }
  lines.push(
    `fleet failure rate ${percent(report.fleetFailureRate)}; exclusions last ${Math.round(report.exclusionPeriodMs / 3_600_000)} h`,
  );
  return lines.join("\n");
}

/** `cuzkit fleet hosts [--lift MACHINE]`: each machine's evidence, failure rate and exclusion. */
export function addHostsCommand(fleet: Command, ctx: FleetContext): void {
  addLeaseOptions(addStoreOptions(fleet.command("hosts")))
    .description(
      "machines and hosts with their evidence (failures, deaths, operator actions), failure rate and exclusion; --lift ends one",
    )
    .option("--json", "print JSON")
    .option("--excluded", "only the machines excluded now")
    .option(
      "--lift <machine-id>",
      "lift this machine's exclusion (an event; its failures still count in its failure rate)",
      wholeNumberOption("--lift", 1, "--lift 502"),
    )
    .option("--reason <text>", "why the exclusion is lifted (kept in the evidence and the event)")
    .action(async (flags: HostsFlags) =>
      ctx.withStore(
        flags,
        async (store) => {
          const { machinesReport, liftMachineExclusion, defaultExclusionPolicy } = await fleetLib();
          const saved = await store.loadSettings(flags.fleet);
          const savedPeriod = saved?.exclusionPeriodMs;
          const policy: ExclusionPolicy = {
            ...defaultExclusionPolicy,
            periodMs: typeof savedPeriod === "number" ? savedPeriod : defaultExclusionPolicy.periodMs,
          };
          if (flags.lift !== undefined) {
            // A write: as the fleet's one writer for its length (refused while a manager runs;
            // lift through its dashboard then).
            const machineId = flags.lift;
            const lifted = await ctx.withLease(flags, store, (fenced) =>
              liftMachineExclusion(
                fenced,
                machineId,
                policy,
                flags.reason === undefined ? undefined : `lifted by the operator: ${flags.reason}`,
              ),
            );
            ctx.print(`machine ${flags.lift} lifted: ${lifted.reason}`);
            return;
          }
          const report = await machinesReport(store, Date.now(), policy);
          const machines = report.machines.filter((m) => !flags.excluded || m.excluded);
          if (flags.json) {
            ctx.print(JSON.stringify({ ...report, machines }, null, 2));
            return;
          }
          if (machines.length === 0) {
            ctx.print(flags.excluded ? "no excluded machines" : "no machines with rentals or evidence");
            return;
          }
          ctx.print(hostsTable(report, machines, colourEnabled(ctx.io.stdout, ctx.io.env)));
        },
        "read",
      ),
    );
}

import type { Command } from "commander";
import { interruptOnSignals } from "../../interrupt.js";
import type { FleetContext } from "./context.js";
import {
  addCurioOptions,
  addLeaseOptions,
  addStoreOptions,
  type ConfigFlags,
  type LeaseFlags,
} from "./flags.js";

/**
 * `cuzkit fleet destroy ID`: destroys one instance from whatever state it is in; with --curio-db
 * an active Curio node is cordoned and drained first.
 */
export function addDestroyCommand(fleet: Command, ctx: FleetContext): void {
  addCurioOptions(addLeaseOptions(addStoreOptions(fleet.command("destroy"))))
    .description(
      "destroy one instance (by our id, i-...) from whatever state it is in; with --curio-db an active Curio node is cordoned and drained first",
    )
    .argument("<id>", "the instance id, as cuzkit fleet status shows it")
    .action(async (id: string, flags: ConfigFlags & LeaseFlags) =>
      ctx.withStore(
        flags,
        (opened) =>
          ctx.withLease(flags, opened, async (store) => {
            const manager = await ctx.managerFor({ ...flags, deadline: [], env: [] }, store);
            // Ctrl-C or SIGTERM during a Curio drain cancels it: the node is uncordoned (or, when
            // HarmonyDB cannot be reached, the drain is stored `cordoned` and the next start uncordons it).
            const interrupt = interruptOnSignals(["SIGINT", "SIGTERM"]);
            try {
              const record = await manager.destroy(id, { signal: interrupt.signal });
              const cancelled =
                interrupt.signal.aborted && record.state === "active"
                  ? ` (destroy cancelled: ${record.curioDrain === undefined ? "its Curio node was uncordoned" : "its Curio node could not be uncordoned yet; the fleet's next start does it"})`
                  : "";
              ctx.print(
                `${record.id} ${record.state}${record.destroyManual ? ` (destroy manually: vast instance ${record.vastId})` : ""}${cancelled}`,
              );
            } finally {
              interrupt.dispose();
            }
          }),
        "read",
      ),
    );
}

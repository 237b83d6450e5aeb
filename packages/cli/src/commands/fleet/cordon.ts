import type { Command } from "commander";
import type { FleetContext } from "./context.js";
import {
  addCurioOptions,
  addLeaseOptions,
  addStoreOptions,
  type ConfigFlags,
  type LeaseFlags,
} from "./flags.js";

/**
 * `cuzkit fleet cordon ID` and `cuzkit fleet uncordon ID`: set or clear Curio's cordon flag
 * (`harmony_machines.unschedulable`) of the instance's node, nothing else, holding the writer lease.
 */
export function addCordonCommands(fleet: Command, ctx: FleetContext): void {
  for (const cordoned of [true, false]) {
    const name = cordoned ? "cordon" : "uncordon";
    addCurioOptions(addLeaseOptions(addStoreOptions(fleet.command(name))))
      .description(
        cordoned
          ? "cordon an instance's Curio node (harmony_machines.unschedulable = true): Curio gives it no new task; its running tasks finish"
          : "uncordon an instance's Curio node (harmony_machines.unschedulable = false): Curio schedules on it again",
      )
      .argument("<id>", "the instance id, as cuzkit fleet status shows it")
      .action(async (id: string, flags: ConfigFlags & LeaseFlags) =>
        ctx.withStore(
          flags,
          (opened) =>
            ctx.withLease(flags, opened, async (store) => {
              const manager = await ctx.managerFor({ ...flags, deadline: [], env: [] }, store);
              const node = await manager.setCordon(id, cordoned);
              ctx.print(`${id} ${name}ed: Curio node ${node.id} (${node.hostAndPort})`);
            }),
          "read",
        ),
      );
  }
}

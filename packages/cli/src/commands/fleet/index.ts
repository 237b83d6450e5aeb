import { Command } from "commander";
import type { CliIO } from "../../io.js";
import { createFleetContext, type FleetCommandDeps } from "./context.js";
import { addCordonCommands } from "./cordon.js";
import { addDemoCommand } from "./demo.js";
import { addDeployCommand } from "./deploy.js";
import { addDestroyCommand } from "./destroy.js";
import { addHostsCommand } from "./hosts.js";
import { addLogsCommand } from "./logs.js";
import { addOffersCommand } from "./offers.js";
import { addRunCommand } from "./run.js";
import { addServeCommand } from "./serve.js";
import { addStatusCommand } from "./status.js";

export type { FleetCommandDeps } from "./context.js";

/** `cuzkit fleet serve|deploy|offers|run|demo|status|hosts|logs|destroy|cordon|uncordon`: the fleet manager. */
export function createFleetCommand(io: CliIO, deps: FleetCommandDeps = {}): Command {
  const fleet = new Command("fleet").description(
    "rent GPU machines, let each benchmark itself, keep those whose measured proofs/hour clears the minimum",
  );
  const ctx = createFleetContext(io, deps);
  addServeCommand(fleet, ctx);
  addDeployCommand(fleet, ctx);
  addOffersCommand(fleet, ctx);
  addRunCommand(fleet, ctx);
  addDemoCommand(fleet, ctx);
  addStatusCommand(fleet, ctx);
  addHostsCommand(fleet, ctx);
  addLogsCommand(fleet, ctx);
  addDestroyCommand(fleet, ctx);
  addCordonCommands(fleet, ctx);
  return fleet;
}

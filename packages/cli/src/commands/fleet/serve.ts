import type { FleetManager, FleetStore } from "@cuzkit/fleet";
import type { Command } from "commander";
import { durationOption } from "../../parse.js";
import { type FleetContext, fleetLib } from "./context.js";
import { addConfigOptions, addStoreOptions, type ConfigFlags } from "./flags.js";

/** Where agents reach the manager by default (defaultFleetListen of @cuzkit/fleet). */
export const defaultListen = "127.0.0.1:7320";

/** Options of {@link serveManager}. */
interface ServeOptions {
  listen: string;
  /** The dashboard's admin token and a line to print about it; without it, no dashboard. */
  dashboard?: { adminToken: string; notice?: string | undefined } | undefined;
  reconcileEveryMs?: number | undefined;
  monitorEveryMs?: number | undefined;
}

/**
 * Serves the manager (agent endpoints, the dashboard when asked), saves the settings with the
 * URL agents reach, runs startup and the loops, and calls `during` until it resolves; then
 * stops the loops and the server. `fleet serve` and `fleet run` both manage this way.
 */
export async function serveManager(
  ctx: FleetContext,
  manager: FleetManager,
  store: FleetStore,
  options: ServeOptions,
  during: () => Promise<void>,
): Promise<void> {
  const { startFleetServer, createDaemonStatusBoard } = await fleetLib();
  const server = await startFleetServer({
    manager,
    listen: options.listen,
    ...(options.dashboard === undefined
      ? {}
      : { dashboard: { adminToken: options.dashboard.adminToken, daemonStatus: createDaemonStatusBoard() } }),
  });
  try {
    store.saveSettings(manager.config.fleet, {
      ...manager.config,
      managerUrl: manager.config.managerUrl ?? server.url,
    });
    ctx.print(`listening ${server.url}`);
    if (options.dashboard !== undefined) {
      ctx.print(`dashboard ${server.url}/ (API: ${server.url}/openapi.json, metrics: ${server.url}/metrics)`);
      if (options.dashboard.notice !== undefined) ctx.print(options.dashboard.notice);
    }
    await manager.startup();
    const stopLoops = manager.startLoops({
      reconcileEveryMs: options.reconcileEveryMs,
      monitorEveryMs: options.monitorEveryMs,
    });
    try {
      await during();
    } finally {
      await stopLoops();
    }
  } finally {
    await server.close();
  }
}

/** `cuzkit fleet serve`: the manager, its dashboard and loops, until stopped. */
export function addServeCommand(fleet: Command, ctx: FleetContext): void {
  addConfigOptions(addStoreOptions(fleet.command("serve")))
    .description("run the manager: agent endpoints, reconcile every minute, deadlines and heartbeats")
    .option(
      "--listen <host:port>",
      "where agents reach the manager (0.0.0.0:PORT to expose it)",
      defaultListen,
    )
    .option(
      "--admin-token <token>",
      "token for the dashboard's actions (and its reads beyond loopback); default: generated once, kept in the store's folder as admin-token (mode 0600)",
    )
    .option(
      "--reconcile-every <duration>",
      "reconcile interval (default 1m)",
      durationOption("--reconcile-every"),
    )
    .option(
      "--monitor-every <duration>",
      "deadline and heartbeat check interval (default 10s)",
      durationOption("--monitor-every"),
    )
    .action(
      async (
        flags: ConfigFlags & {
          listen: string;
          reconcileEvery?: number;
          monitorEvery?: number;
          adminToken?: string;
        },
      ) =>
        ctx.withStore(flags, async (store) => {
          const manager = await ctx.managerFor(flags, store);
          const { loadOrCreateAdminToken } = await fleetLib();
          const admin = loadOrCreateAdminToken({ given: flags.adminToken, storePath: store.path });
          // Printed only when new: a kept token is read from its file, a given one the operator knows.
          const notice =
            admin.source === "generated"
              ? `admin token ${admin.token}${admin.path === undefined ? "" : ` (kept in ${admin.path})`}`
              : undefined;
          await serveManager(
            ctx,
            manager,
            store,
            {
              listen: flags.listen,
              dashboard: { adminToken: admin.token, notice },
              reconcileEveryMs: flags.reconcileEvery,
              monitorEveryMs: flags.monitorEvery,
            },
            ctx.untilStopped,
          );
        }),
    );
}

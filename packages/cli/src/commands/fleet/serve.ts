import { homedir } from "node:os";
import { InvalidInputError } from "@cuzkit/core";
import type { FleetAlerts, FleetManager, FleetStore, FleetTarget, WriterLease } from "@cuzkit/fleet";
import { fleetDefaults } from "@cuzkit/fleet/defaults";
import type { Command } from "commander";
import { durationOption, durationText } from "../../parse.js";
import { readSecretFile, warnSecretArgument } from "../../secret-options.js";
import { type FleetContext, fleetLib, managerNonceSetting } from "./context.js";
import {
  addConfigOptions,
  addReplicaOptions,
  addStoreOptions,
  type ConfigFlags,
  type LeaseFlags,
  type StoreFlags,
} from "./flags.js";

/** Where agents reach the manager by default (defaultFleetListen of @cuzkit/fleet). */
export const defaultListen = "127.0.0.1:7320";

/** Options of {@link serveManager}. */
interface ServeOptions {
  listen: string;
  /** The dashboard's admin token and a line to print about it; without it, no dashboard. */
  dashboard?: { adminToken: string; notice?: string | undefined } | undefined;
  reconcileEveryMs?: number | undefined;
  monitorEveryMs?: number | undefined;
  /** The writer lease this manager must hold to act. */
  lease: WriterLease;
  /** Called once it serves and its manager URL is settled: a failure before leaves nothing behind. */
  onStarted?: (() => void) | undefined;
  /** More to run while this replica acts (fleet run's steps), told the alert loop; returns its stop. Default: nothing. */
  whileLeading?: ((leading: { alerts: FleetAlerts | undefined }) => () => Promise<void>) | undefined;
  /** The alert webhook and what the alerts need (fleet run's target). Default: no alerts. */
  alerts?: { webhookUrl: string; target?: FleetTarget | undefined } | undefined;
  /**
   * The --manager-url flag, and whether a URL agents reach is required to start (fleet run) or,
   * when missing, only turns renting off (fleet serve: its dashboard deploy and resumed rentals).
   */
  rentingUrl: { given: string | undefined; required: boolean };
}

/** Flags of the commands that may run as replicas on one PostgreSQL store. */
export interface ReplicaFlags extends StoreFlags, LeaseFlags {
  adminToken?: string;
  adminTokenFile?: string;
  alertWebhook?: string;
  alertWebhookFile?: string;
  leaseCheckEvery?: number;
}

/**
 * The alert webhook URL: --alert-webhook (warned: it shows in ps), else --alert-webhook-file,
 * else CUZKIT_FLEET_ALERT_WEBHOOK; undefined when none. Checked here, before anything acts.
 */
export async function givenAlertWebhook(ctx: FleetContext, flags: ReplicaFlags): Promise<string | undefined> {
  if (flags.alertWebhook !== undefined && flags.alertWebhookFile !== undefined) {
    throw new InvalidInputError("--alert-webhook and --alert-webhook-file both give the alert webhook", {
      hint: "keep --alert-webhook-file and leave --alert-webhook out",
    });
  }
  let url: string | undefined;
  let source = "CUZKIT_FLEET_ALERT_WEBHOOK";
  if (flags.alertWebhook !== undefined) {
    warnSecretArgument(
      ctx.io,
      "--alert-webhook",
      "use CUZKIT_FLEET_ALERT_WEBHOOK or --alert-webhook-file FILE",
    );
    url = flags.alertWebhook;
    source = "--alert-webhook";
  } else if (flags.alertWebhookFile !== undefined) {
    url = readSecretFile("--alert-webhook-file", flags.alertWebhookFile, ctx.io);
    source = "--alert-webhook-file";
  } else {
    const fromEnv = ctx.io.env.CUZKIT_FLEET_ALERT_WEBHOOK;
    url = fromEnv === undefined || fromEnv === "" ? undefined : fromEnv;
  }
  if (url === undefined) return undefined;
  const { checkAlertWebhookUrl } = await fleetLib();
  try {
    checkAlertWebhookUrl(url);
  } catch (error) {
    throw new InvalidInputError(`${source} is not an http(s) URL`, {
      hint: `give the webhook's full URL (https://...) in ${source}`,
      cause: error,
    });
  }
  return url;
}

/**
 * The admin token (given, kept, or generated and printed once), the fleet's writer lease and
 * the store fenced by it (every write checks the lease); serveManager claims the lease. A
 * PostgreSQL store has no folder: its token is kept in the local
 * state folder, and replicas share one by --admin-token.
 */
export async function replicaSetup(
  ctx: FleetContext,
  flags: ReplicaFlags,
  store: FleetStore,
): Promise<{
  dashboard: { adminToken: string; notice: string | undefined };
  lease: WriterLease;
  fenced: FleetStore;
}> {
  const { loadOrCreateAdminToken, defaultStorePath } = await fleetLib();
  const given = givenAdminToken(ctx, flags);
  let admin: ReturnType<typeof loadOrCreateAdminToken>;
  try {
    admin = loadOrCreateAdminToken({
      given: given?.token,
      storePath: store.path ?? defaultStorePath(ctx.io.env),
    });
  } catch (error) {
    // The library names --admin-token; say where the token really came from.
    if (given === undefined || !(error instanceof InvalidInputError)) throw error;
    throw new InvalidInputError(error.message.replace("--admin-token", given.source), {
      hint: `put a token of that shape in ${given.source} (openssl rand -base64 32 | tr '+/' '-_' | tr -d =)`,
    });
  }
  // Printed only when new: a kept token is read from its file, a given one the operator knows.
  const notice =
    admin.source === "generated"
      ? `admin token ${admin.token}${admin.path === undefined ? "" : ` (kept in ${admin.path})`}`
      : undefined;
  // Nothing is claimed yet: serveManager claims it once the manager is built.
  const lease = store.writerLease({
    fleet: flags.fleet,
    periodMs: flags.leasePeriod,
    checkEveryMs: flags.leaseCheckEvery,
  });
  return { dashboard: { adminToken: admin.token, notice }, lease, fenced: store.fencedBy(lease) };
}

/**
 * The admin token the operator gave, and where from: --admin-token (warned: it shows in ps),
 * --admin-token-file, else CUZKIT_FLEET_ADMIN_TOKEN. Undefined: the kept or a generated one.
 */
function givenAdminToken(
  ctx: FleetContext,
  flags: ReplicaFlags,
): { token: string; source: string } | undefined {
  if (flags.adminToken !== undefined && flags.adminTokenFile !== undefined) {
    throw new InvalidInputError("--admin-token and --admin-token-file both give the admin token", {
      hint: "keep --admin-token-file and leave --admin-token out",
    });
  }
  if (flags.adminToken !== undefined) {
    warnSecretArgument(ctx.io, "--admin-token", "use CUZKIT_FLEET_ADMIN_TOKEN or --admin-token-file FILE");
    return { token: flags.adminToken, source: "--admin-token" };
  }
  if (flags.adminTokenFile !== undefined) {
    return {
      token: readSecretFile("--admin-token-file", flags.adminTokenFile, ctx.io),
      source: "--admin-token-file",
    };
  }
  const fromEnv = ctx.io.env.CUZKIT_FLEET_ADMIN_TOKEN;
  return fromEnv === undefined || fromEnv === ""
    ? undefined
    : { token: fromEnv, source: "CUZKIT_FLEET_ADMIN_TOKEN" };
}

/**
 * Claims the writer lease (SQLite: or refuses), serves the manager (agent endpoints, the
 * dashboard when asked), and acts while it holds the lease, until stopped: it saves the settings
 * with the URL agents reach, then startup, the loops and `whileLeading`. Gives the lease up at
 * the end. `fleet serve` and `fleet run` both manage this way.
 */
export async function serveManager(
  ctx: FleetContext,
  manager: FleetManager,
  store: FleetStore,
  options: ServeOptions,
): Promise<void> {
  const { startFleetServer, createDaemonStatusBoard } = await fleetLib();
  const { lease } = options;
  // The Vast API key is removed from every log line an agent ships (the agent removes it too,
  // when it is in the machine's environment); the admin token the server adds itself.
  const { resolveApiKey } = await import("@cuzkit/vast");
  const vastKey = (
    await resolveApiKey({ env: ctx.io.env, homeDir: ctx.io.env.HOME ?? homedir() }).catch(() => ({
      key: undefined,
    }))
  ).key;
  try {
    // On SQLite a second manager refuses at once (FLEET_LEASE_HELD, naming the holder); on
    // PostgreSQL it follows, serving reads, until the lease is free or lapses.
    if (store.kind === "sqlite") await lease.acquireNow();
    else ctx.print("following: another replica may lead; this one serves reads until it takes the lease");
    const server = await startFleetServer({
      manager,
      listen: options.listen,
      dashboard:
        options.dashboard === undefined
          ? undefined
          : { adminToken: options.dashboard.adminToken, daemonStatus: createDaemonStatusBoard() },
      isLeader: () => lease.held,
      logSecrets: () => (vastKey === undefined ? [] : [vastKey]),
    });
    try {
      await actUntilStopped(ctx, manager, store, options, server);
    } finally {
      await server.close();
    }
  } finally {
    await lease.release(); // also when the server could not start: the next manager need not wait
  }
}

/** Prints where it serves, then acts while it holds the lease (runLeadership) until stopped. */
async function actUntilStopped(
  ctx: FleetContext,
  manager: FleetManager,
  store: FleetStore,
  options: ServeOptions,
  server: { url: string; nonce: string },
): Promise<void> {
  const { runLeadership, startFleetAlerts } = await fleetLib();
  const serverUrl = server.url;
  // The URL is saved as given, never the listen address: agents on rented machines cannot
  // reach a loopback or 0.0.0.0 address. The nonce lets a later deploy check that the URL
  // reaches this server. Taken before the check, which may turn renting off for this process.
  const { allowLoopbackManagerUrl: _override, ...settings } = manager.config;
  ctx.print(`listening ${serverUrl}`);
  await checkRentingUrl(ctx, manager, server.nonce, options.rentingUrl);
  options.onStarted?.();
  if (options.dashboard !== undefined) {
    ctx.print(`dashboard ${serverUrl}/ (API: ${serverUrl}/openapi.json, metrics: ${serverUrl}/metrics)`);
    if (options.dashboard.notice !== undefined) ctx.print(options.dashboard.notice);
  }
  // A write, so the leader's: a follower's would be refused. Saved before waiting for a stop
  // when this process already holds the lease (SQLite), so what it serves is on record first.
  const saveSettings = () =>
    store.saveSettings(manager.config.fleet, { ...settings, [managerNonceSetting]: server.nonce });
  if (options.lease.held) await saveSettings();
  const lead = async () => {
    await saveSettings();
    await manager.startup();
    const stopLoops = manager.startLoops({
      reconcileEveryMs: options.reconcileEveryMs,
      monitorEveryMs: options.monitorEveryMs,
    });
    const alerts =
      options.alerts === undefined
        ? undefined
        : startFleetAlerts({
            manager,
            webhookUrl: options.alerts.webhookUrl,
            target: options.alerts.target,
            everyMs: options.monitorEveryMs,
            logger: ctx.logger,
          });
    const stopMore = options.whileLeading?.({ alerts });
    return async () => {
      // First: the drains stop with their state stored (the next leader resumes them), so the
      // loops' running steps end now rather than at a drain's deadline.
      const drainsStopped = manager.stop();
      await stopMore?.();
      await stopLoops();
      await drainsStopped;
      await alerts?.stop();
    };
  };
  await runLeadership({
    lease: options.lease,
    lead,
    until: ctx.untilStopped(),
    logger: ctx.logger,
    onChange: (leading) => ctx.print(leading ? "leading" : "following"),
  });
}

/**
 * Checks the URL this process would hand agents, now that it listens: --manager-url as given, or
 * the stored one only when it answers the health check with this server's nonce. Required (fleet
 * run): throws FLEET_MANAGER_URL. Otherwise (fleet serve): warns and turns renting off.
 */
async function checkRentingUrl(
  ctx: FleetContext,
  manager: FleetManager,
  nonce: string,
  rentingUrl: ServeOptions["rentingUrl"],
): Promise<void> {
  const { resolveRentingManagerUrl } = await fleetLib();
  try {
    await resolveRentingManagerUrl({
      given: rentingUrl.given,
      stored: manager.config.managerUrl,
      expectedNonce: nonce,
      allowLoopback: manager.config.allowLoopbackManagerUrl,
    });
  } catch (error) {
    if (rentingUrl.required) throw error;
    // Serving goes on (agents already rented still report); renting refuses until a URL is given.
    manager.config.managerUrl = undefined;
    ctx.logger.warn("renting is off: no manager URL agents on rented machines can reach", {
      reason: (error as Error).message,
      hint: "pass --manager-url https://HOST:PORT reachable from the rented machines",
    });
  }
}

/** `cuzkit fleet serve`: the manager, its dashboard and loops, until stopped. */
export function addServeCommand(fleet: Command, ctx: FleetContext): void {
  addReplicaOptions(addConfigOptions(addStoreOptions(fleet.command("serve"))))
    .description("run the manager: agent endpoints, reconcile every minute, deadlines and heartbeats")
    .option(
      "--listen <host:port>",
      "where agents reach the manager (0.0.0.0:PORT to expose it)",
      defaultListen,
    )
    .option(
      "--reconcile-every <duration>",
      `reconcile interval (default ${durationText(fleetDefaults.reconcileEveryMs)})`,
      durationOption("--reconcile-every"),
    )
    .option(
      "--monitor-every <duration>",
      `deadline and heartbeat check interval (default ${durationText(fleetDefaults.monitorEveryMs)})`,
      durationOption("--monitor-every"),
    )
    .action(
      async (
        flags: ConfigFlags &
          ReplicaFlags & {
            listen: string;
            reconcileEvery?: number;
            monitorEvery?: number;
          },
      ) => {
        // Checked before the store is opened: a bad flag leaves nothing behind.
        const webhookUrl = await givenAlertWebhook(ctx, flags);
        return ctx.withStore(flags, async (store, keep) => {
          const { dashboard, lease, fenced } = await replicaSetup(ctx, flags, store);
          const manager = await ctx.managerFor(flags, fenced);
          await serveManager(ctx, manager, fenced, {
            listen: flags.listen,
            dashboard,
            lease,
            alerts: webhookUrl === undefined ? undefined : { webhookUrl },
            onStarted: keep,
            reconcileEveryMs: flags.reconcileEvery,
            monitorEveryMs: flags.monitorEvery,
            rentingUrl: { given: flags.managerUrl, required: false },
          });
        });
      },
    );
}

import pg from "pg";
import { fleetDefaults } from "../defaults.js";
import { checkSchemaName } from "./connection-string.js";
import { postgresClientConfig } from "./postgres-executor.js";
import { advisoryLockClasses } from "./postgres-fleet-store.js";

/** Options of createLeaderLease. */
export interface LeaderLeaseOptions {
  /** The fleet store's `postgres://` URL. Required. */
  url: string;
  /** The fleet store's schema. Default `cuzkit_fleet`. */
  schema?: string | undefined;
  /** The fleet's name: one leader per fleet and schema. Required. */
  fleet: string;
  /** How often a follower tries to take the lease, and the leader checks it still holds it, ms. Default 5 000. */
  checkEveryMs?: number | undefined;
  /** Waits between tries (tests pass a fast one). Default: setTimeout. */
  sleep?: ((ms: number) => Promise<void>) | undefined;
}

/** The fleet's leader lease: a PostgreSQL session-level advisory lock held on its own connection. */
export interface LeaderLease {
  /** True while this process holds the lease. */
  readonly held: boolean;
  /** Resolves once this process holds the lease (tries every `checkEveryMs`); rejects when `signal` aborts. */
  acquire(signal?: AbortSignal): Promise<void>;
  /** Resolves when a held lease is lost (its connection ended); the leader must stop acting at once. */
  lost(): Promise<void>;
  /** Gives the lease up (ends its connection) so another replica takes over. */
  release(): Promise<void>;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * A leader lease over `pg_try_advisory_lock`. The lock belongs to the session: it is released
 * when its connection ends, including when the leader's process dies (the server sees the
 * socket close) — so a follower's next try takes over. The leader checks its connection every
 * `checkEveryMs`; if a check fails it has lost the lease (another replica may hold it) and
 * `lost()` resolves.
 */
export function createLeaderLease(options: LeaderLeaseOptions): LeaderLease {
  const schema = checkSchemaName(options.schema ?? fleetDefaults.postgresSchema, "--db-schema");
  const checkEveryMs = options.checkEveryMs ?? fleetDefaults.leaseCheckEveryMs;
  const sleep = options.sleep ?? defaultSleep;
  let client: pg.Client | undefined;
  let held = false;
  let released = false;
  let markLost: () => void = () => {};
  let lostPromise: Promise<void> = new Promise(() => {});

  const drop = async () => {
    const c = client;
    client = undefined;
    if (held) {
      held = false;
      markLost();
    }
    await c?.end().catch(() => {});
  };

  const tryTake = async (): Promise<boolean> => {
    if (client === undefined) {
      const c = new pg.Client({ ...postgresClientConfig(options.url, schema), keepAlive: true });
      c.on("error", () => void drop());
      c.on("end", () => void drop());
      await c.connect();
      client = c;
    }
    const row = (
      await client.query<{ ok: boolean }>(
        `SELECT pg_try_advisory_lock(${advisoryLockClasses.leader}, hashtext($1)) AS ok`,
        [`${schema}:${options.fleet}`],
      )
    ).rows[0];
    return row?.ok === true;
  };

  const watch = async () => {
    // The leader's check: a query on the lease's own connection. A failure means the session
    // (and so the lock) may be gone.
    while (held && !released) {
      await sleep(checkEveryMs);
      if (!held || client === undefined) return;
      try {
        await client.query("SELECT 1");
      } catch {
        await drop();
      }
    }
  };

  return {
    get held() {
      return held;
    },
    async acquire(signal) {
      while (!held) {
        if (signal?.aborted) throw signal.reason ?? new Error("aborted");
        if (released) throw new Error("the leader lease was released");
        try {
          if (await tryTake()) {
            lostPromise = new Promise((resolve) => {
              markLost = resolve;
            });
            held = true;
            void watch();
            return;
          }
        } catch {
          await drop(); // unreachable for now: try again later
        }
        await sleep(checkEveryMs);
      }
    },
    lost: () => (held ? lostPromise : Promise.resolve()),
    async release() {
      released = true;
      await drop();
    },
  };
}

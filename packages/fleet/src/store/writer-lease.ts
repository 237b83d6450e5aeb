import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { Clock } from "@cuzkit/core";
import { fleetDefaults } from "../defaults.js";
import { type LeaseHolding, leaseHeld, leaseLost } from "../errors.js";
import type { LeaderLease } from "./leader-lease.js";
import type { SqlExecutor } from "./sql-executor.js";

// One writer per fleet, on SQLite and PostgreSQL alike: a row of `writer_lease` names the
// holder, its epoch (tenure) and when it lapses. Taking or renewing it is one serialized
// transaction (SQLite BEGIN IMMEDIATE; PostgreSQL SELECT ... FOR UPDATE), and every write of a
// fenced store checks the row in its own transaction (fence), so a manager that froze, lapsed
// and resumed cannot write: its epoch is no longer the row's.

/** Options of FleetStore.writerLease. */
export interface WriterLeaseOptions {
  /** The fleet: one writer per fleet and store. Required. */
  fleet: string;
  /** This holder's name, shown to whoever is refused. Default: `HOST pid PID #RANDOM`. */
  holder?: string | undefined;
  /** How long the lease lasts unless renewed, ms. Default 30 000 (three monitor intervals). */
  periodMs?: number | undefined;
  /** How often a follower tries to take it and the holder renews it, ms. Default: 5 000, at most a third of the period. */
  checkEveryMs?: number | undefined;
  /** The lease's clock. Default: the database's (one clock for every process). */
  clock?: Clock | undefined;
  /** Waits between tries and renewals (tests pass one that never resolves, and renew by hand). Default: setTimeout. */
  sleep?: ((ms: number) => Promise<void>) | undefined;
}

/** The answer of one claim: held (with its epoch), or someone else's. */
export type LeaseClaim =
  | { held: true; epoch: number; expiresAt: number }
  | { held: false; holding: LeaseHolding };

/** The fleet's writer lease, as one manager holds (or waits for) it. */
export interface WriterLease extends LeaderLease {
  readonly fleet: string;
  /** This holder's name. */
  readonly holder: string;
  /** How long the lease lasts unless renewed, ms. */
  readonly periodMs: number;
  /** The epoch this manager holds; undefined while it does not. */
  readonly epoch: number | undefined;
  /**
   * One try. Not held: takes the lease when free, lapsed or ours, with a new epoch. Held: renews
   * it, keeping the epoch, unless another took it meanwhile (then the lease is lost).
   */
  claim(): Promise<LeaseClaim>;
  /** One claim; throws FleetLeaseHeldError naming the holder when another manager holds it. */
  acquireNow(): Promise<void>;
  /** The lease row as it is, or undefined when no one ever held it. */
  current(): Promise<LeaseHolding | undefined>;
  /**
   * Throws FleetLeaseLostError unless this manager still holds the lease (holder and epoch match
   * the row). Runs inside the write's transaction `tx`, so the check and the write are atomic.
   */
  fence(tx: SqlExecutor): Promise<void>;
}

interface LeaseRow {
  holder: string;
  epoch: number;
  expires_at: number;
}

// Unreferenced: a one-shot command (deploy, destroy, run --once) exits when its work is done,
// not at the next renewal.
const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/** A readable, unique holder name: the host, the pid and a random id (two leases in one process differ). */
export function defaultHolderName(): string {
  return `${hostname()} pid ${process.pid} #${randomBytes(3).toString("hex")}`;
}

/** The writer lease of `options.fleet` on the store's database. `location` names the store in refusals. */
export function createWriterLease(
  db: SqlExecutor,
  location: string,
  options: WriterLeaseOptions,
): WriterLease {
  const { fleet } = options;
  const holder = options.holder ?? defaultHolderName();
  const periodMs = options.periodMs ?? fleetDefaults.leasePeriodMs;
  const checkEveryMs = Math.min(options.checkEveryMs ?? fleetDefaults.leaseCheckEveryMs, periodMs / 3);
  const sleep = options.sleep ?? defaultSleep;
  const d = db.dialect;
  // A frozen holder's transaction must not block the others past half a period.
  const boundWaits = async (tx: SqlExecutor) => {
    for (const statement of d.boundWaits(periodMs / 2)) await tx.run(statement);
  };
  const now = async (tx: SqlExecutor) =>
    options.clock?.now() ??
    ((await tx.get<{ now: number }>(`SELECT ${d.nowMs} AS now`)) as { now: number }).now;
  const readRow = (tx: SqlExecutor, lock: boolean) =>
    tx.get<LeaseRow>(
      `SELECT holder, epoch, expires_at FROM writer_lease WHERE fleet = ?${lock ? d.forUpdate : ""}`,
      [fleet],
    );
  const holdingOf = (row: LeaseRow): LeaseHolding => ({
    holder: row.holder,
    epoch: row.epoch,
    expiresAt: row.expires_at,
  });

  let epoch: number | undefined;
  let released = false;
  let watching = false;
  let lastRenewedAt = 0;
  let markLost: () => void = () => {};
  let lostPromise: Promise<void> = Promise.resolve();
  const localNow = () => options.clock?.now() ?? Date.now();

  const drop = () => {
    if (epoch === undefined) return;
    epoch = undefined;
    markLost();
  };

  const claim = async (): Promise<LeaseClaim> => {
    const answer = await db.transaction(async (tx): Promise<LeaseClaim> => {
      await boundWaits(tx);
      await tx.run(
        "INSERT INTO writer_lease (fleet, holder, epoch, expires_at, acquired_at) VALUES (?, '', 0, 0, 0) ON CONFLICT (fleet) DO NOTHING",
        [fleet],
      );
      const row = (await readRow(tx, true)) as LeaseRow;
      const at = await now(tx);
      let next: number;
      if (epoch !== undefined) {
        // A renewal keeps the tenure, even past its end, only while no one else took the lease
        // meanwhile; if anyone did (even if it has lapsed or been given back since), this
        // tenure is over: the manager stops acting before it claims a new one.
        if (row.holder !== holder || row.epoch !== epoch) return { held: false, holding: holdingOf(row) };
        next = epoch;
      } else {
        if (row.expires_at > at && row.holder !== holder) return { held: false, holding: holdingOf(row) };
        // A new tenure, so every write made under an older epoch is refused from now on.
        next = row.epoch + 1;
      }
      await tx.run(
        "UPDATE writer_lease SET holder = ?, epoch = ?, expires_at = ?, acquired_at = CASE WHEN epoch = ? THEN acquired_at ELSE ? END WHERE fleet = ?",
        [holder, next, at + periodMs, next, at, fleet],
      );
      return { held: true, epoch: next, expiresAt: at + periodMs };
    });
    if (answer.held) {
      if (epoch === undefined) {
        lostPromise = new Promise((resolve) => {
          markLost = resolve;
        });
      }
      epoch = answer.epoch;
      lastRenewedAt = localNow();
      if (!watching) void watch();
    } else {
      drop();
    }
    return answer;
  };

  // The holder renews every check; when it cannot (the database is unreachable) for a whole
  // period, it must assume another has taken over, and stops acting.
  const watch = async () => {
    watching = true;
    try {
      while (epoch !== undefined && !released) {
        await sleep(checkEveryMs);
        if (epoch === undefined || released) return;
        try {
          await claim();
        } catch {
          if (localNow() - lastRenewedAt >= periodMs) drop();
        }
      }
    } finally {
      watching = false;
    }
  };

  const lease: WriterLease = {
    fleet,
    holder,
    periodMs,
    get epoch() {
      return epoch;
    },
    get held() {
      return epoch !== undefined;
    },
    claim,
    async acquireNow() {
      const answer = await claim();
      if (!answer.held) throw leaseHeld(fleet, location, answer.holding);
    },
    async acquire(signal) {
      while (epoch === undefined) {
        if (signal?.aborted) throw signal.reason ?? new Error("aborted");
        if (released) throw new Error("the writer lease was released");
        try {
          if ((await claim()).held) return;
        } catch {
          // unreachable for now: try again at the next check
        }
        await sleep(checkEveryMs);
      }
    },
    lost: () => (epoch === undefined ? Promise.resolve() : lostPromise),
    async release() {
      released = true;
      const held = epoch;
      drop();
      if (held === undefined) return;
      // Lapses at once, so the next manager need not wait out the period; its claim starts a new epoch.
      await db
        .transaction(async (tx) => {
          await tx.run(
            "UPDATE writer_lease SET expires_at = ? WHERE fleet = ? AND holder = ? AND epoch = ?",
            [await now(tx), fleet, holder, held],
          );
        })
        .catch(() => {});
    },
    async current() {
      const row = await readRow(db, false);
      return row === undefined || row.holder === "" ? undefined : holdingOf(row);
    },
    async fence(tx) {
      await boundWaits(tx);
      const row = await readRow(tx, true);
      if (epoch !== undefined && row !== undefined && row.holder === holder && row.epoch === epoch) return;
      drop(); // stop acting at once: runLeadership follows again
      throw leaseLost(fleet, holder, row === undefined ? undefined : holdingOf(row));
    },
  };
  return lease;
}

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

/** The lease's fixed parts: the database, the names and the timings. */
interface LeaseContext {
  db: SqlExecutor;
  /** Names the store in refusals. */
  location: string;
  fleet: string;
  holder: string;
  periodMs: number;
  checkEveryMs: number;
  sleep: (ms: number) => Promise<void>;
  clock: Clock | undefined;
}

/** What one manager's lease holds and watches, changed by the steps below. */
interface LeaseState {
  /** The epoch held; undefined while not held. */
  epoch: number | undefined;
  released: boolean;
  /** True while the renewal loop (watch) runs. */
  watching: boolean;
  /** When the last renewal succeeded, by the local clock. */
  lastRenewedAt: number;
  /** Resolves `lostPromise`: called when the tenure ends. */
  markLost: () => void;
  lostPromise: Promise<void>;
}

// A frozen holder's transaction must not block the others past half a period.
async function boundWaits(lease: LeaseContext, tx: SqlExecutor): Promise<void> {
  for (const statement of lease.db.dialect.boundWaits(lease.periodMs / 2)) await tx.run(statement);
}

/** The lease's time: its clock, else the database's. */
async function leaseNow(lease: LeaseContext, tx: SqlExecutor): Promise<number> {
  return (
    lease.clock?.now() ??
    ((await tx.get<{ now: number }>(`SELECT ${lease.db.dialect.nowMs} AS now`)) as { now: number }).now
  );
}

const localNow = (lease: LeaseContext) => lease.clock?.now() ?? Date.now();

function readRow(lease: LeaseContext, tx: SqlExecutor, lock: boolean): Promise<LeaseRow | undefined> {
  return tx.get<LeaseRow>(
    `SELECT holder, epoch, expires_at FROM writer_lease WHERE fleet = ?${lock ? lease.db.dialect.forUpdate : ""}`,
    [lease.fleet],
  );
}

const holdingOf = (row: LeaseRow): LeaseHolding => ({
  holder: row.holder,
  epoch: row.epoch,
  expiresAt: row.expires_at,
});

/** Ends the tenure held, if any: the manager stops acting. */
function drop(state: LeaseState): void {
  if (state.epoch === undefined) return;
  state.epoch = undefined;
  state.markLost();
}

/** One claim's transaction: takes or renews the row when it may, else answers whose it is. */
async function claimRow(lease: LeaseContext, state: LeaseState, tx: SqlExecutor): Promise<LeaseClaim> {
  const { fleet, holder, periodMs } = lease;
  await boundWaits(lease, tx);
  await tx.run(
    "INSERT INTO writer_lease (fleet, holder, epoch, expires_at, acquired_at) VALUES (?, '', 0, 0, 0) ON CONFLICT (fleet) DO NOTHING",
    [fleet],
  );
  const row = (await readRow(lease, tx, true)) as LeaseRow;
  const at = await leaseNow(lease, tx);
  // Read after the awaits above, as the tenure stands now (a fence may have ended it meanwhile).
  const epoch = state.epoch;
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
}

/** One try (see WriterLease.claim), and the state it leaves: held and watched, or dropped. */
async function claim(lease: LeaseContext, state: LeaseState): Promise<LeaseClaim> {
  const answer = await lease.db.transaction((tx) => claimRow(lease, state, tx));
  if (answer.held) {
    if (state.epoch === undefined) {
      state.lostPromise = new Promise((resolve) => {
        state.markLost = resolve;
      });
    }
    state.epoch = answer.epoch;
    state.lastRenewedAt = localNow(lease);
    if (!state.watching) void watch(lease, state);
  } else {
    drop(state);
  }
  return answer;
}

// The holder renews every check; when it cannot (the database is unreachable) for a whole
// period, it must assume another has taken over, and stops acting.
async function watch(lease: LeaseContext, state: LeaseState): Promise<void> {
  state.watching = true;
  try {
    while (state.epoch !== undefined && !state.released) {
      await lease.sleep(lease.checkEveryMs);
      if (state.epoch === undefined || state.released) return;
      try {
        await claim(lease, state);
      } catch {
        if (localNow(lease) - state.lastRenewedAt >= lease.periodMs) drop(state);
      }
    }
  } finally {
    state.watching = false;
  }
}

/** Claims at every check until held (see LeaderLease.acquire). */
async function acquire(
  lease: LeaseContext,
  state: LeaseState,
  signal: AbortSignal | undefined,
): Promise<void> {
  while (state.epoch === undefined) {
    if (signal?.aborted) throw signal.reason ?? new Error("aborted");
    if (state.released) throw new Error("the writer lease was released");
    try {
      if ((await claim(lease, state)).held) return;
    } catch {
      // unreachable for now: try again at the next check
    }
    await lease.sleep(lease.checkEveryMs);
  }
}

/** Gives the lease back for good (see LeaderLease.release). */
async function release(lease: LeaseContext, state: LeaseState): Promise<void> {
  state.released = true;
  const held = state.epoch;
  drop(state);
  if (held === undefined) return;
  // Lapses at once, so the next manager need not wait out the period; its claim starts a new epoch.
  await lease.db
    .transaction(async (tx) => {
      await tx.run("UPDATE writer_lease SET expires_at = ? WHERE fleet = ? AND holder = ? AND epoch = ?", [
        await leaseNow(lease, tx),
        lease.fleet,
        lease.holder,
        held,
      ]);
    })
    .catch(() => {});
}

/** Throws FleetLeaseLostError unless the row still names this holder and epoch (see WriterLease.fence). */
async function fence(lease: LeaseContext, state: LeaseState, tx: SqlExecutor): Promise<void> {
  await boundWaits(lease, tx);
  const row = await readRow(lease, tx, true);
  const { epoch } = state;
  if (epoch !== undefined && row !== undefined && row.holder === lease.holder && row.epoch === epoch) return;
  drop(state); // stop acting at once: runLeadership follows again
  throw leaseLost(lease.fleet, lease.holder, row === undefined ? undefined : holdingOf(row));
}

/** The writer lease of `options.fleet` on the store's database. `location` names the store in refusals. */
export function createWriterLease(
  db: SqlExecutor,
  location: string,
  options: WriterLeaseOptions,
): WriterLease {
  const periodMs = options.periodMs ?? fleetDefaults.leasePeriodMs;
  const lease: LeaseContext = {
    db,
    location,
    fleet: options.fleet,
    holder: options.holder ?? defaultHolderName(),
    periodMs,
    checkEveryMs: Math.min(options.checkEveryMs ?? fleetDefaults.leaseCheckEveryMs, periodMs / 3),
    sleep: options.sleep ?? defaultSleep,
    clock: options.clock,
  };
  const state: LeaseState = {
    epoch: undefined,
    released: false,
    watching: false,
    lastRenewedAt: 0,
    markLost: () => {},
    lostPromise: Promise.resolve(),
  };
  return {
    fleet: lease.fleet,
    holder: lease.holder,
    periodMs,
    get epoch() {
      return state.epoch;
    },
    get held() {
      return state.epoch !== undefined;
    },
    claim: () => claim(lease, state),
    async acquireNow() {
      const answer = await claim(lease, state);
      if (!answer.held) throw leaseHeld(lease.fleet, location, answer.holding);
    },
    acquire: (signal) => acquire(lease, state, signal),
    lost: () => (state.epoch === undefined ? Promise.resolve() : state.lostPromise),
    release: () => release(lease, state),
    async current() {
      const row = await readRow(lease, db, false);
      return row === undefined || row.holder === "" ? undefined : holdingOf(row);
    },
    fence: (tx) => fence(lease, state, tx),
  };
}

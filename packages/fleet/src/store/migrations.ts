import { type SqlDialect, sqliteDialect } from "./sql-dialect.js";

// Forward-only schema migrations. A migration is never edited once released: a change is a
// new entry at the end. Each runs in its own transaction with its version row. One text serves
// SQLite and PostgreSQL: the few differences (integer width, row ids, the append-only trigger)
// are the dialect's, so both stores have the same tables and columns.

/** One migration: its version (1, 2, ...) and the SQL that moves the schema forward (text, or built per dialect). */
export interface Migration {
  version: number;
  description: string;
  sql: string | ((dialect: SqlDialect) => string);
}

/** A migration's SQL for a dialect. Default: SQLite. */
export function migrationSql(migration: Migration, dialect: SqlDialect = sqliteDialect): string {
  return typeof migration.sql === "string" ? migration.sql : migration.sql(dialect);
}

/** The fleet's migrations, oldest first. */
export const migrations: readonly Migration[] = [
  {
    version: 1,
    description: "instances, events, benchmark results, unknown instances, excluded machines",
    sql: (d) => `
      CREATE TABLE instances (
        id TEXT PRIMARY KEY,
        fleet TEXT NOT NULL,
        label TEXT NOT NULL UNIQUE,
        state TEXT NOT NULL,
        offer_id ${d.integer} NOT NULL,
        machine_id ${d.integer},
        vast_id ${d.integer} UNIQUE,
        dph ${d.real} NOT NULL,
        offer_json TEXT NOT NULL,
        deadlines_json TEXT NOT NULL,
        token_hash TEXT NOT NULL,
        phase_started_at ${d.integer} NOT NULL,
        phase_deadline_at ${d.integer},
        last_heartbeat_at ${d.integer},
        tuned_config TEXT,
        proofs_per_hour ${d.real},
        reason TEXT,
        destroy_first_attempt_at ${d.integer},
        destroy_attempts ${d.integer} NOT NULL DEFAULT 0,
        destroy_next_attempt_at ${d.integer},
        destroy_manual ${d.integer} NOT NULL DEFAULT 0,
        created_at ${d.integer} NOT NULL,
        updated_at ${d.integer} NOT NULL
      );
      CREATE INDEX instances_by_state ON instances (state);
      CREATE TABLE events (
        seq ${d.serialKey},
        instance_id TEXT NOT NULL,
        at ${d.integer} NOT NULL,
        type TEXT NOT NULL,
        from_state TEXT,
        to_state TEXT,
        detail_json TEXT
      );
      CREATE INDEX events_by_instance ON events (instance_id, seq);
      -- Append-only: the history is evidence, so no row is ever changed or removed.
      ${d.appendOnly("events", "events are append-only")}
      CREATE TABLE benchmark_results (
        instance_id TEXT PRIMARY KEY REFERENCES instances (id),
        at ${d.integer} NOT NULL,
        verdict TEXT NOT NULL,
        proofs_per_hour ${d.real} NOT NULL,
        min_proofs_per_hour ${d.real} NOT NULL,
        machine_id ${d.integer},
        gpu_name TEXT,
        num_gpus ${d.integer},
        report_json TEXT NOT NULL
      );
      -- Labelled Vast instances the store has no live row for, with when each was first seen:
      -- the grace period before their destroy must survive a restart.
      CREATE TABLE unknown_instances (
        vast_id ${d.integer} PRIMARY KEY,
        label TEXT NOT NULL,
        first_seen_at ${d.integer} NOT NULL,
        outcome TEXT
      );
      CREATE TABLE excluded_machines (
        machine_id ${d.integer} PRIMARY KEY,
        at ${d.integer} NOT NULL,
        reason TEXT NOT NULL
      );
    `,
  },
  {
    version: 2,
    description: "fleet settings, so deploy and destroy use what serve was started with",
    sql: (d) => `
      CREATE TABLE fleet_settings (
        fleet TEXT PRIMARY KEY,
        config_json TEXT NOT NULL,
        updated_at ${d.integer} NOT NULL
      );
    `,
  },
  {
    version: 3,
    description:
      "host performance: every benchmark and production rate with the offer's hardware, for calibration",
    sql: (d) => `
      CREATE TABLE host_performance (
        seq ${d.serialKey},
        kind TEXT NOT NULL CHECK (kind IN ('benchmark', 'production')),
        instance_id TEXT NOT NULL REFERENCES instances (id),
        at ${d.integer} NOT NULL,
        verdict TEXT,
        proofs_per_hour ${d.real} NOT NULL,
        predicted_proofs_per_hour ${d.real},
        dph ${d.real} NOT NULL,
        offer_id ${d.integer} NOT NULL,
        machine_id ${d.integer},
        host_id ${d.integer},
        gpu_name TEXT NOT NULL,
        num_gpus ${d.integer} NOT NULL,
        cpu_ram_bytes ${d.integer} NOT NULL,
        cpu_cores ${d.integer},
        cpu_name TEXT,
        class_key TEXT NOT NULL,
        window_ms ${d.integer},
        config TEXT,
        records_json TEXT
      );
      CREATE INDEX host_performance_by_machine ON host_performance (machine_id, seq);
      CREATE INDEX host_performance_by_class ON host_performance (class_key, seq);
    `,
  },
  {
    version: 4,
    description:
      "host performance from Curio: where a production rate came from, its proof type and its failures",
    sql: (d) => `
      -- source: 'agent' (the agent's own report) or 'curio' (HarmonyDB's task history); NULL
      -- on older rows means 'agent'. Curio rates are per proof type, so they carry it.
      ALTER TABLE host_performance ADD COLUMN source TEXT;
      ALTER TABLE host_performance ADD COLUMN task_type TEXT;
      ALTER TABLE host_performance ADD COLUMN failures ${d.integer};
    `,
  },
  {
    version: 5,
    description:
      "the writer lease: one manager writes to the store at a time, and its writes carry the lease's epoch",
    sql: (d) => `
      -- One row per fleet: who may write (holder), which tenure (epoch, +1 at every change of
      -- holder) and until when (expires_at, the database's clock in ms). Every write of a
      -- manager checks the row in its own transaction (fencing).
      CREATE TABLE writer_lease (
        fleet TEXT PRIMARY KEY,
        holder TEXT NOT NULL,
        epoch ${d.integer} NOT NULL,
        expires_at ${d.integer} NOT NULL,
        acquired_at ${d.integer} NOT NULL
      );
      -- Which tenure wrote each event (NULL: a write without the lease, or before it existed).
      ALTER TABLE events ADD COLUMN writer_epoch ${d.integer};
    `,
  },
  {
    version: 6,
    description:
      "claims checked against evidence: the claimed, recomputed and modelled rates, and the counted rate and its basis",
    sql: (d) => `
      -- proofs_per_hour stays the rate every consumer counts (the counted rate); these say where
      -- it came from. NULL on older rows: rate_basis 'benchmark', counted at proofs_per_hour.
      ALTER TABLE instances ADD COLUMN claimed_proofs_per_hour ${d.real};
      ALTER TABLE instances ADD COLUMN benchmark_proofs_per_hour ${d.real};
      ALTER TABLE instances ADD COLUMN model_proofs_per_hour ${d.real};
      ALTER TABLE instances ADD COLUMN rate_basis TEXT;
      ALTER TABLE instances ADD COLUMN production_proofs_per_hour ${d.real};
      ALTER TABLE instances ADD COLUMN production_at ${d.integer};
      ALTER TABLE instances ADD COLUMN below_keep_since ${d.integer};
      CREATE INDEX host_performance_by_instance ON host_performance (instance_id, seq);
    `,
  },
  {
    version: 7,
    description:
      "machine evidence: each failure or death of a rental with its kind, so exclusion is computed and expires",
    sql: (d) => `
      -- One row per failure, death, operator action or lift. Whether a machine is excluded, and
      -- its failure rate, are computed from these rows and the clock: nothing here is a verdict.
      CREATE TABLE machine_evidence (
        seq ${d.serialKey},
        machine_id ${d.integer} NOT NULL,
        host_id ${d.integer},
        instance_id TEXT,
        at ${d.integer} NOT NULL,
        kind TEXT NOT NULL,
        reason TEXT NOT NULL
      );
      CREATE INDEX machine_evidence_by_machine ON machine_evidence (machine_id, seq);
      ${d.appendOnly("machine_evidence", "machine evidence is append-only: lift an exclusion with a lift row")}
      -- The old permanent exclusions become evidence: a cordon stays until lifted, an UNSTABLE
      -- verdict now expires like a new one.
      INSERT INTO machine_evidence (machine_id, host_id, instance_id, at, kind, reason)
        SELECT machine_id, NULL, NULL, at,
          CASE WHEN reason LIKE 'cordoned%' THEN 'cordon' ELSE 'unstable' END, reason
        FROM excluded_machines ORDER BY at;
    `,
  },
  {
    version: 8,
    description:
      "Curio drains on the instance: the node cordoned, its deadline and whether a destroy waits, so a restarted manager resumes or uncordons",
    sql: (d) => `
      -- curio_drain: 'draining' (the node is cordoned and a destroy waits for its tasks) or
      -- 'cordoned' (cordoned by the fleet, no destroy pending: an uncordon still to do); NULL:
      -- no drain. curio_machine_id is harmony_machines.id; the times are epoch ms.
      ALTER TABLE instances ADD COLUMN curio_drain TEXT;
      ALTER TABLE instances ADD COLUMN curio_machine_id ${d.integer};
      ALTER TABLE instances ADD COLUMN curio_drain_since ${d.integer};
      ALTER TABLE instances ADD COLUMN curio_drain_deadline_at ${d.integer};
      ALTER TABLE instances ADD COLUMN curio_drain_destroy ${d.integer};
    `,
  },
  {
    version: 9,
    description:
      "the log tail each agent ships (the daemon's and its own last lines, redacted), bounded per instance",
    sql: (d) => `
      -- The newest lines of each instance only: every append trims the instance's older rows.
      CREATE TABLE instance_logs (
        seq ${d.serialKey},
        instance_id TEXT NOT NULL,
        at ${d.integer} NOT NULL,
        received_at ${d.integer} NOT NULL,
        stream TEXT NOT NULL,
        line TEXT NOT NULL
      );
      CREATE INDEX instance_logs_by_instance ON instance_logs (instance_id, seq);
    `,
  },
];

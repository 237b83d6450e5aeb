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
];

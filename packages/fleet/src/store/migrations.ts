// Forward-only schema migrations. A migration is never edited once released: a change is a
// new entry at the end. Each runs in its own transaction with its version row.

/** One migration: its version (1, 2, ...) and the SQL that moves the schema forward. */
export interface Migration {
  version: number;
  description: string;
  sql: string;
}

/** The fleet's migrations, oldest first. */
export const migrations: readonly Migration[] = [
  {
    version: 1,
    description: "instances, events, benchmark results, unknown instances, excluded machines",
    sql: `
      CREATE TABLE instances (
        id TEXT PRIMARY KEY,
        fleet TEXT NOT NULL,
        label TEXT NOT NULL UNIQUE,
        state TEXT NOT NULL,
        offer_id INTEGER NOT NULL,
        machine_id INTEGER,
        vast_id INTEGER UNIQUE,
        dph REAL NOT NULL,
        offer_json TEXT NOT NULL,
        deadlines_json TEXT NOT NULL,
        token_hash TEXT NOT NULL,
        phase_started_at INTEGER NOT NULL,
        phase_deadline_at INTEGER,
        last_heartbeat_at INTEGER,
        tuned_config TEXT,
        proofs_per_hour REAL,
        reason TEXT,
        destroy_first_attempt_at INTEGER,
        destroy_attempts INTEGER NOT NULL DEFAULT 0,
        destroy_next_attempt_at INTEGER,
        destroy_manual INTEGER NOT NULL DEFAULT 0,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE INDEX instances_by_state ON instances (state);
      CREATE TABLE events (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        instance_id TEXT NOT NULL,
        at INTEGER NOT NULL,
        type TEXT NOT NULL,
        from_state TEXT,
        to_state TEXT,
        detail_json TEXT
      );
      CREATE INDEX events_by_instance ON events (instance_id, seq);
      -- Append-only: the history is evidence, so no row is ever changed or removed.
      CREATE TRIGGER events_no_update BEFORE UPDATE ON events
        BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;
      CREATE TRIGGER events_no_delete BEFORE DELETE ON events
        BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;
      CREATE TABLE benchmark_results (
        instance_id TEXT PRIMARY KEY REFERENCES instances (id),
        at INTEGER NOT NULL,
        verdict TEXT NOT NULL,
        proofs_per_hour REAL NOT NULL,
        min_proofs_per_hour REAL NOT NULL,
        machine_id INTEGER,
        gpu_name TEXT,
        num_gpus INTEGER,
        report_json TEXT NOT NULL
      );
      -- Labelled Vast instances the store has no live row for, with when each was first seen:
      -- the grace period before their destroy must survive a restart.
      CREATE TABLE unknown_instances (
        vast_id INTEGER PRIMARY KEY,
        label TEXT NOT NULL,
        first_seen_at INTEGER NOT NULL,
        outcome TEXT
      );
      CREATE TABLE excluded_machines (
        machine_id INTEGER PRIMARY KEY,
        at INTEGER NOT NULL,
        reason TEXT NOT NULL
      );
    `,
  },
  {
    version: 2,
    description: "fleet settings, so deploy and destroy use what serve was started with",
    sql: `
      CREATE TABLE fleet_settings (
        fleet TEXT PRIMARY KEY,
        config_json TEXT NOT NULL,
        updated_at INTEGER NOT NULL
      );
    `,
  },
  {
    version: 3,
    description:
      "host performance: every benchmark and production rate with the offer's hardware, for calibration",
    sql: `
      CREATE TABLE host_performance (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        kind TEXT NOT NULL CHECK (kind IN ('benchmark', 'production')),
        instance_id TEXT NOT NULL REFERENCES instances (id),
        at INTEGER NOT NULL,
        verdict TEXT,
        proofs_per_hour REAL NOT NULL,
        predicted_proofs_per_hour REAL,
        dph REAL NOT NULL,
        offer_id INTEGER NOT NULL,
        machine_id INTEGER,
        host_id INTEGER,
        gpu_name TEXT NOT NULL,
        num_gpus INTEGER NOT NULL,
        cpu_ram_bytes INTEGER NOT NULL,
        cpu_cores INTEGER,
        cpu_name TEXT,
        class_key TEXT NOT NULL,
        window_ms INTEGER,
        config TEXT,
        records_json TEXT
      );
      CREATE INDEX host_performance_by_machine ON host_performance (machine_id, seq);
      CREATE INDEX host_performance_by_class ON host_performance (class_key, seq);
    `,
  },
];

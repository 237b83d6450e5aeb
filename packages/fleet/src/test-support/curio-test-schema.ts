// The subset of Curio's HarmonyDB schema the fleet reads and writes, for tests: the columns of
// harmony_machines, harmony_task and harmony_task_history as Curio's migrations leave them
// (filecoin-project/curio harmony/harmonydb/sql/20230719-harmony.sql for the tables,
// 20231113-harmony_taskhistory_oops.sql for completed_by_host_and_port,
// 20240522-ts-to-timestampz.sql for the TIMESTAMPTZ columns, 20250111-machine-maintenance.sql
// for unschedulable; harmony_machine_details from 20240404-machine_detail.sql with
// 20240527-machine_name.sql's machine_name and 20260501-machine-detail-version.sql's version). Written here from those definitions; Curio's other tables are left out.

/** DDL creating the subset in `schema`. */
export function curioTestSchemaSql(schema: string): string {
  return `
    CREATE SCHEMA ${schema};
    CREATE TABLE ${schema}.harmony_machines (
      id SERIAL PRIMARY KEY NOT NULL,
      last_contact TIMESTAMPTZ NOT NULL DEFAULT current_timestamp,
      host_and_port VARCHAR(300) NOT NULL,
      cpu INTEGER NOT NULL,
      ram BIGINT NOT NULL,
      gpu FLOAT NOT NULL,
      unschedulable BOOLEAN DEFAULT FALSE
    );
    CREATE TABLE ${schema}.harmony_machine_details (
      id SERIAL PRIMARY KEY,
      tasks TEXT,
      layers TEXT,
      startup_time TIMESTAMPTZ,
      miners TEXT,
      machine_id INTEGER REFERENCES ${schema}.harmony_machines (id) ON DELETE CASCADE,
      machine_name TEXT,
      version TEXT
    );
    CREATE UNIQUE INDEX ON ${schema}.harmony_machine_details (machine_id);
    CREATE TABLE ${schema}.harmony_task (
      id SERIAL PRIMARY KEY NOT NULL,
      initiated_by INTEGER,
      update_time TIMESTAMPTZ NOT NULL DEFAULT current_timestamp,
      posted_time TIMESTAMPTZ NOT NULL,
      owner_id INTEGER REFERENCES ${schema}.harmony_machines (id) ON DELETE SET NULL,
      added_by INTEGER NOT NULL,
      previous_task INTEGER,
      name VARCHAR(16) NOT NULL
    );
    CREATE TABLE ${schema}.harmony_task_history (
      id SERIAL PRIMARY KEY NOT NULL,
      task_id INTEGER NOT NULL,
      name VARCHAR(16) NOT NULL,
      posted TIMESTAMPTZ NOT NULL,
      work_start TIMESTAMPTZ NOT NULL,
      work_end TIMESTAMPTZ NOT NULL,
      result BOOLEAN NOT NULL,
      err VARCHAR,
      completed_by_host_and_port VARCHAR(300) NOT NULL
    );`;
}

import type { SqlExecutor } from "./sql-executor.js";

/** True for SQL that changes rows (the fleet's writes all start so). */
const isWrite = (sql: string) => /^\s*(INSERT|UPDATE|DELETE)\b/i.test(sql);

/**
 * The one place where writes are fenced: every transaction, and every write outside one, runs
 * `fence` first in the same transaction (the writer lease's check), so a write happens only
 * while the check holds. Reads pass through.
 */
export function fencedExecutor(db: SqlExecutor, fence: (tx: SqlExecutor) => Promise<void>): SqlExecutor {
  const fenced: SqlExecutor["transaction"] = (work) =>
    db.transaction(async (tx) => {
      await fence(tx);
      return work(tx);
    });
  return {
    dialect: db.dialect,
    all: (sql, params) => (isWrite(sql) ? fenced((tx) => tx.all(sql, params)) : db.all(sql, params)),
    get: (sql, params) => (isWrite(sql) ? fenced((tx) => tx.get(sql, params)) : db.get(sql, params)),
    run: (sql, params) => (isWrite(sql) ? fenced((tx) => tx.run(sql, params)) : db.run(sql, params)),
    transaction: fenced,
  };
}

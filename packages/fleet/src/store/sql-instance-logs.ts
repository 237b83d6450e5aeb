import { logTailDefaults } from "../defaults.js";
import type { InstanceLogLine, InstanceLogLineInput } from "./records.js";
import type { SqlStoreContext } from "./sql-store-context.js";

// The store's per-instance log tails: the newest lines the agents shipped, trimmed on each append.

interface LogRow {
  seq: number;
  instance_id: string;
  at: number;
  received_at: number;
  stream: string;
  line: string;
}

const sql = {
  insertLogLine:
    "INSERT INTO instance_logs (instance_id, at, received_at, stream, line) VALUES (?, ?, ?, ?, ?)",
  // Everything at or before the instance's (keep+1)-th newest line goes (none when it has fewer).
  trimLogLines: `DELETE FROM instance_logs WHERE instance_id = ? AND seq <= (
      SELECT seq FROM instance_logs WHERE instance_id = ? ORDER BY seq DESC LIMIT 1 OFFSET ?)`,
  selectLogTail: `SELECT * FROM (SELECT * FROM instance_logs WHERE instance_id = ? ORDER BY seq DESC LIMIT ?) AS newest
    ORDER BY seq ASC`,
} as const;

const logLineFromRow = (row: LogRow): InstanceLogLine => ({
  seq: row.seq,
  instanceId: row.instance_id,
  stream: row.stream,
  at: row.at,
  receivedAt: row.received_at,
  text: row.line,
});

/** FleetStore.appendLogLines. Default keepLines: logTailDefaults.storeKeepLines. */
export async function appendLogLines(
  ctx: SqlStoreContext,
  id: string,
  lines: readonly InstanceLogLineInput[],
  keepLines: number = logTailDefaults.storeKeepLines,
): Promise<void> {
  if (lines.length === 0) return;
  await ctx.db.transaction(async (tx) => {
    const now = ctx.clock.now();
    // Only the newest keepLines of this shipment can survive the trim: the rest is not written.
    for (const line of lines.slice(-Math.max(1, keepLines)))
      await tx.run(sql.insertLogLine, [id, line.at, now, line.stream, line.text]);
    await tx.run(sql.trimLogLines, [id, id, Math.max(1, keepLines)]);
  });
}

/** FleetStore.logTail: the newest `limit` lines, oldest first. Default limit: logTailDefaults.storeKeepLines. */
export async function logTail(
  ctx: SqlStoreContext,
  id: string,
  limit: number = logTailDefaults.storeKeepLines,
): Promise<InstanceLogLine[]> {
  return (await ctx.db.all<LogRow>(sql.selectLogTail, [id, limit])).map(logLineFromRow);
}

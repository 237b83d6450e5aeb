/** The daemon's HTTP /status as an agent last forwarded it, per instance (kept in memory only). */
export interface DaemonStatusBoard {
  /** Keeps the latest status of an instance. */
  set(instanceId: string, status: Record<string, unknown>, at: number): void;
  /** The latest status and when it came, or undefined. */
  get(instanceId: string): { at: number; status: Record<string, unknown> } | undefined;
}

/** An in-memory board; at most `maxInstances` entries (oldest dropped). Default 1000. */
export function createDaemonStatusBoard(maxInstances = 1000): DaemonStatusBoard {
  const latest = new Map<string, { at: number; status: Record<string, unknown> }>();
  return {
    set(instanceId, status, at) {
      latest.delete(instanceId);
      latest.set(instanceId, { at, status });
      if (latest.size > maxInstances) latest.delete(latest.keys().next().value as string);
    },
    get: (instanceId) => latest.get(instanceId),
  };
}

/**
 * Operators' requests for an instance's log tail, until its agent's next heartbeat takes them
 * (the answer says `sendLogs: true`). Kept in this manager's memory: a request made on one
 * replica is answered by the agents that heartbeat there.
 */
export interface LogRequests {
  /** Asks for the instance's log tail at its next heartbeat. */
  ask(instanceId: string): void;
  /** True once per request: the heartbeat that takes it answers with it. */
  take(instanceId: string): boolean;
}

/** An empty set of log requests, at most `max` instances at once (default 1000; the oldest go). */
export function createLogRequests(max = 1000): LogRequests {
  const asked = new Set<string>();
  return {
    ask(instanceId) {
      asked.delete(instanceId);
      asked.add(instanceId);
      for (const oldest of asked) {
        if (asked.size <= max) break;
        asked.delete(oldest);
      }
    },
    take: (instanceId) => asked.delete(instanceId),
  };
}

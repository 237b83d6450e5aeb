import type { AgentRun } from "./agent-run.js";
import { codeOf } from "./agent-step-error.js";

/**
 * Sends a heartbeat every interval with the current phase (and the daemon's /status when it can
 * be read in time); acts on the answer (`send-logs`, `stop`). Answers the timer handle.
 */
export function startHeartbeat(run: AgentRun, intervalMs: number): unknown {
  const { options, logger } = run;
  // A heartbeat waits for the daemon's /status at most until the next tick: a slow or frozen
  // daemon (a read may take seconds) must never silence the agent for the manager's 3 intervals.
  let heartbeating = false;
  let statusRead: Promise<Record<string, unknown> | undefined> | undefined;
  let sendWithoutStatus: (() => void) | undefined;
  return run.timers.setInterval(() => {
    sendWithoutStatus?.();
    if (heartbeating) return;
    heartbeating = true;
    // A read still running from an earlier tick is not waited for again.
    let status: Promise<Record<string, unknown> | undefined> = Promise.resolve(undefined);
    if (statusRead === undefined && options.readDaemonStatus !== undefined) {
      const read = options.readDaemonStatus().catch(() => undefined);
      statusRead = read;
      void read.finally(() => {
        if (statusRead === read) statusRead = undefined;
      });
      const cut = new Promise<undefined>((resolve) => {
        sendWithoutStatus = () => resolve(undefined);
      });
      status = Promise.race([read, cut]);
    }
    status
      .then((status) => {
        sendWithoutStatus = undefined;
        // The parsed copy only: `raw` repeats it, and the heartbeat body is size-limited.
        const { raw: _raw, ...daemonStatus } = status ?? {};
        return options.reporter.heartbeat(
          status === undefined ? { phase: run.currentPhase } : { phase: run.currentPhase, daemonStatus },
        );
      })
      .then((answer) => {
        if (answer === "send-logs") void run.shipLogs("request", run.currentPhase);
        if (answer === "stop") {
          logger.warn("agent: the manager has given this machine up; stopping");
          run.stop.abort();
        }
      })
      .catch((error) => logger.warn("agent heartbeat failed", { code: codeOf(error) }))
      .finally(() => {
        heartbeating = false;
      });
  }, intervalMs);
}

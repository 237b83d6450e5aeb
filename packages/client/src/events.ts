import type { CuzkitError, Logger, ProofKind } from "@cuzkit/core";
import type { StuckEvidence } from "./errors.js";

// Events `prove` emits for each step, to a typed callback and as log lines.

/** Fields every prove event has. */
interface EventBase {
  /** The proof kind. */
  kind: ProofKind;
  /** Request id (= job id) of the current attempt. */
  requestId: string;
  /** Attempt number, from 1. */
  attempt: number;
  /** Milliseconds since prove was called (injected clock). */
  elapsedMs: number;
}

/** One step of a `prove` call. */
export type ProveEvent =
  | (EventBase & { type: "attempt"; sizeBytes: number })
  | (EventBase & { type: "submitted"; queuePosition: number })
  | (EventBase & { type: "connection-lost"; phase: "submit" | "await"; error: CuzkitError })
  | (EventBase & { type: "reconnecting"; probe: number; delayMs: number; error: CuzkitError })
  | (EventBase & {
      type: "waiting-for-restart";
      /** When the connection broke, in ms since prove was called: the daemon has been unreachable since then. */
      unreachableSinceMs: number;
      /** How long prove waits for the daemon to come back before DaemonUnavailableError, in ms (reconnect.giveUpAfterMs, capped by the deadline). */
      waitMs: number;
      /** The refusal that started the wait. */
      error: CuzkitError;
    })
  | (EventBase & { type: "resumed"; uptimeSeconds: number })
  | (EventBase & {
      type: "daemon-restarted";
      /** What showed the restart: uptime or the completed/failed counters went back, or it no longer knew the job. */
      evidence: "uptime" | "counters" | "not-found";
      uptimeBeforeSeconds: number | undefined;
      uptimeAfterSeconds: number | undefined;
    })
  | (EventBase & {
      type: "resubmitted";
      previousRequestId: string;
      /** daemon-restarted: the job was lost; not-accepted: the submit broke before the daemon took it. */
      reason: "daemon-restarted" | "not-accepted";
      resubmits: number;
    })
  | (EventBase & {
      type: "stuck";
      /** What was seen: no progress for `noProgressForMs` against a window of `windowMs`, and the last status. */
      evidence: StuckEvidence;
    })
  | (EventBase & { type: "completed"; totalMs: number; proofBytes: number })
  | (EventBase & { type: "failed"; error: CuzkitError });

/** The type names of prove events. */
export type ProveEventType = ProveEvent["type"];

/** Writes an event to the logger: warnings for trouble, errors for failure, info otherwise. */
// shape-exception: one flat case per event type of the ProveEvent union, each a level, a message and its fields
export function logProveEvent(logger: Logger, event: ProveEvent): void {
  const { type, kind, requestId, attempt, elapsedMs } = event;
  const fields: Record<string, unknown> = { kind, requestId, attempt, elapsedMs };
  switch (event.type) {
    case "attempt":
      logger.info("cuzk prove: attempt", { ...fields, sizeBytes: event.sizeBytes });
      return;
    case "submitted":
      logger.info("cuzk prove: submitted", { ...fields, queuePosition: event.queuePosition });
      return;
    case "connection-lost":
      logger.warn("cuzk prove: connection lost", {
        ...fields,
        phase: event.phase,
        code: event.error.code,
        error: event.error.message,
      });
      return;
    case "reconnecting":
      logger.warn("cuzk prove: reconnecting", {
        ...fields,
        probe: event.probe,
        delayMs: event.delayMs,
        code: event.error.code,
      });
      return;
    case "waiting-for-restart":
      logger.warn("cuzk prove: daemon unreachable, waiting for a restart", {
        ...fields,
        unreachableSinceMs: event.unreachableSinceMs,
        waitMs: event.waitMs,
        code: event.error.code,
      });
      return;
    case "resumed":
      logger.info("cuzk prove: resumed", { ...fields, uptimeSeconds: event.uptimeSeconds });
      return;
    case "daemon-restarted":
      logger.warn("cuzk prove: daemon restarted, job lost", {
        ...fields,
        evidence: event.evidence,
        uptimeBeforeSeconds: event.uptimeBeforeSeconds,
        uptimeAfterSeconds: event.uptimeAfterSeconds,
      });
      return;
    case "resubmitted":
      logger.warn("cuzk prove: resubmitted", {
        ...fields,
        previousRequestId: event.previousRequestId,
        reason: event.reason,
        resubmits: event.resubmits,
      });
      return;
    case "stuck":
      logger.warn("cuzk prove: job stuck, no progress", {
        ...fields,
        noProgressForMs: event.evidence.noProgressForMs,
        windowMs: event.evidence.windowMs,
        etaMs: event.evidence.etaMs,
        completed: event.evidence.lastStatus.completed,
        failed: event.evidence.lastStatus.failed,
      });
      return;
    case "completed":
      logger.info("cuzk prove: completed", {
        ...fields,
        totalMs: event.totalMs,
        proofBytes: event.proofBytes,
      });
      return;
    case "failed":
      logger.error("cuzk prove: failed", {
        ...fields,
        code: event.error.code,
        error: event.error.message,
        hint: event.error.hint,
      });
      return;
    default:
      logger.info(`cuzk prove: ${type}`, fields);
  }
}

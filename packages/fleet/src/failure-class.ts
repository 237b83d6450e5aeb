import type { FleetEvent } from "./store/records.js";

/**
 * Why an instance failed, as a closed set (a metric label, an alert's class): never the agent's
 * own text, which is a claim from a stranger's machine and unbounded.
 */
export const fleetFailureClasses = [
  "daemon-died",
  "daemon-froze",
  "daemon-stuck",
  "daemon-restarted",
  "proof-failed",
  "proof-deadline",
  "agent-step",
  "benchmark",
  "phase-deadline",
  "heartbeat-lost",
  "vast-stopped",
  "vast-gone",
  "rent-refused",
  "manager-crash",
  "operator",
  "other",
] as const;

/** One failure class (see fleetFailureClasses). */
export type FleetFailureClass = (typeof fleetFailureClasses)[number];

// The bench's failure classes (records.ts) an agent may report for a failed step.
const byAgentClass: Readonly<Record<string, FleetFailureClass>> = {
  died: "daemon-died",
  froze: "daemon-froze",
  stuck: "daemon-stuck",
  restarted: "daemon-restarted",
  failed: "proof-failed",
  deadline: "proof-deadline",
};

// The manager's own event types that move an instance to `failed`.
const byEventType: Readonly<Record<string, FleetFailureClass>> = {
  decision: "benchmark",
  deadline: "phase-deadline",
  lost: "heartbeat-lost",
  "vast-status": "vast-stopped",
  gone: "vast-gone",
  "rent-refused": "rent-refused",
  "crash-left": "manager-crash",
  "operator-destroy": "operator",
};

/** The class of the event that moved an instance to `failed` ("other" for a type it does not know). */
export function fleetFailureClass(event: Pick<FleetEvent, "type" | "detail">): FleetFailureClass {
  if (event.type === "agent-failure") {
    const reported = event.detail?.errorClass;
    return typeof reported === "string" ? (ownValue(byAgentClass, reported) ?? "agent-step") : "agent-step";
  }
  return ownValue(byEventType, event.type) ?? "other";
}

// Own keys only: "toString" or "constructor" from a machine must not find Object's prototype.
const ownValue = <T>(table: Readonly<Record<string, T>>, key: string): T | undefined =>
  Object.hasOwn(table, key) ? table[key] : undefined;

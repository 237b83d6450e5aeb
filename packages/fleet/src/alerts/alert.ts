import type { FleetFailureClass } from "../failure-class.js";

/** What an alert is about. */
export type AlertKind =
  /** An instance failed (OOM kill or death, freeze, deadline, lost heartbeat, ...). */
  | "machine-failed"
  /** A machine is excluded from rentals (its failures, or an operator's cordon). */
  | "machine-excluded"
  /** The fleet's counted rate stayed under the target for the alert window. */
  | "below-target"
  /** The fleet is under target and the $/h cap keeps it from renting. */
  | "budget-reached"
  /** A Curio node is left cordoned (a drain that could not finish or undo its cordon). */
  | "curio-cordon-left";

/** One alert, as POSTed to the webhook. */
export interface FleetAlert {
  kind: AlertKind;
  /** The fleet's name. */
  fleet: string;
  /** What it is about, for deduplication: the same key is sent once until it clears. */
  key: string;
  /** When it was raised, epoch ms. */
  at: number;
  /** The instance it concerns, when one. */
  instanceId?: string | undefined;
  /** The failure class, for machine-failed. */
  failureClass?: FleetFailureClass | undefined;
  /** One line for people; also Slack's `text` (escaped so machine text cannot mention anyone). */
  text: string;
  /** The figures the alert rests on. */
  detail: Record<string, unknown>;
}

/**
 * Text safe for Slack's `text` field: `&`, `<` and `>` escaped (so `<!channel>` or a link from a
 * machine's error message stays text), control characters dropped, at most `maxChars`.
 */
export function slackSafe(text: string, maxChars = 500): string {
  // Control characters (newlines from a machine's message included) become one space.
  const flat = [...text].map((c) => (c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f ? " " : c)).join("");
  const cut = flat.length > maxChars ? `${flat.slice(0, maxChars - 1)}…` : flat;
  return cut.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

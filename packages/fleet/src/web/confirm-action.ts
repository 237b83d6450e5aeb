/// <reference lib="dom" />
import type { InstanceListView } from "../server/dashboard-views.js";
import { el, formatNumber } from "./dom.js";

/** What the operator is asked before an action: its consequences, in the page's words. */
export function actionConsequences(action: string, instance: InstanceListView): string[] {
  const price = `$${formatNumber(instance.dphPerHour, 3)}/h`;
  const where = `${instance.numGpus}× ${instance.gpuName}, ${instance.state}, ${price}`;
  if (action === "destroy") {
    const lines = [
      `Destroy ${instance.label} (${instance.id}): ${where}.`,
      "The Vast rental is destroyed and stops billing; this cannot be undone.",
    ];
    if (instance.curioIdentityIssue !== null) {
      lines.push(
        `Its Curio node cannot be told apart (${instance.curioIdentityIssue}): the destroy will be refused.`,
      );
    } else if (instance.curioProduction.length > 0 && instance.state === "active") {
      lines.push(
        "Its Curio node is cordoned first and drained: the destroy waits for the tasks it is running.",
      );
    } else if (instance.state === "active") {
      lines.push("It is serving: proofs in flight on it are lost.");
    }
    return lines;
  }
  if (action === "cordon") {
    return [
      `Cordon machine ${instance.machineId ?? "?"} of ${instance.label} (${instance.id}): ${where}.`,
      "The machine is not rented again until the exclusion is lifted; this instance keeps running.",
    ];
  }
  return [`${action} ${instance.label} (${instance.id})?`];
}

/**
 * Asks before an action with a modal dialog listing its consequences; resolves true when the
 * operator confirms. One dialog at a time (a second click while open is ignored: false).
 */
export function confirmAction(action: string, instance: InstanceListView): Promise<boolean> {
  if (document.querySelector("dialog#confirm-action") !== null) return Promise.resolve(false);
  const ok = el(
    "button",
    { type: "button", id: "confirm-yes", class: `action ${action}` },
    `${action} ${instance.id}`,
  );
  const cancel = el("button", { type: "button", id: "confirm-no" }, "cancel");
  const dialog = el(
    "dialog",
    { id: "confirm-action", "aria-labelledby": "confirm-title" },
    el("h3", { id: "confirm-title" }, `${action}?`),
    ...actionConsequences(action, instance).map((line) => el("p", {}, line)),
    el("div", { class: "confirm-buttons" }, cancel, ok),
  );
  document.body.append(dialog);
  return new Promise((resolve) => {
    const done = (answer: boolean) => {
      dialog.close();
      dialog.remove();
      resolve(answer);
    };
    ok.addEventListener("click", () => done(true));
    cancel.addEventListener("click", () => done(false));
    // Escape closes a modal dialog: a cancel.
    dialog.addEventListener("cancel", () => done(false));
    dialog.showModal();
    cancel.focus();
  });
}

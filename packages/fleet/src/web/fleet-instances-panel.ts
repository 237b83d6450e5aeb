/// <reference lib="dom" />
import { curioRatesText } from "../curio/curio-rate.js";
import type { InstanceListView, InstanceView } from "../server/dashboard-views.js";
import { el, formatDuration, formatNumber, replaceChildren, table } from "./dom.js";
import { liveAge } from "./liveness.js";

// The fleet page's instances panel: the table of instances, each with its phase bar and action
// buttons, behind the "show destroyed" filter.

/** What an instance's action button does when clicked (after the page's confirmation). */
export type InstanceAction = (instance: InstanceListView, action: string) => void;

/** The bar of a timed phase: elapsed over the time it was given; red past the deadline. */
function phaseBar(instance: InstanceView, now: number): HTMLElement {
  const elapsed = now - instance.phaseStartedAt;
  if (instance.phaseDeadlineAt === null) return el("span", { class: "muted" }, formatDuration(elapsed));
  const budget = Math.max(1, instance.phaseDeadlineAt - instance.phaseStartedAt);
  const fraction = Math.min(1, elapsed / budget);
  const fill = el("div", { class: fraction >= 1 ? "fill late" : fraction > 0.8 ? "fill near" : "fill" });
  fill.style.width = `${(fraction * 100).toFixed(1)}%`;
  return el(
    "div",
    { class: "phase", title: `deadline in ${formatDuration(instance.phaseDeadlineAt - now)}` },
    el(
      "div",
      { class: "bar", role: "progressbar", "aria-valuenow": String(Math.round(fraction * 100)) },
      fill,
    ),
    el("span", { class: "muted" }, `${formatDuration(elapsed)} / ${formatDuration(budget)}`),
  );
}

function actionButton(action: string, instance: InstanceListView, act: InstanceAction): HTMLButtonElement {
  const button = el("button", { type: "button", class: `action ${action}`, "data-action": action }, action);
  button.addEventListener("click", () => act(instance, action));
  return button;
}

/** The Curio cell: the node's rates, an ambiguous identity, and a drain held on the node. */
function curioCell(instance: InstanceListView): HTMLTableCellElement {
  return el(
    "td",
    { class: "curio" },
    curioRatesText(instance.curioProduction, "–"),
    // Two candidate nodes: the reason on hover; nothing is cordoned or destroyed automatically.
    instance.curioIdentityIssue
      ? el("div", { class: "basis", title: instance.curioIdentityIssue }, "node ambiguous")
      : null,
    // A drain held on its node: `draining` until its tasks end (or the deadline), or `cordoned`
    // when an uncordon is still to do (the next start retries it).
    instance.curioDrain
      ? el(
          "div",
          {
            class: "basis curio-drain",
            title: `Curio node ${instance.curioDrain.curioMachineId} cordoned at ${new Date(instance.curioDrain.since).toISOString()}${instance.curioDrain.deadlineAt === null ? "" : `; destroyed by ${new Date(instance.curioDrain.deadlineAt).toISOString()} at the latest`}`,
          },
          instance.curioDrain.state,
        )
      : null,
  );
}

function instanceRow(instance: InstanceListView, now: number, act: InstanceAction): HTMLTableRowElement {
  const live = instance.state !== "destroyed" && instance.state !== "destroying";
  return el(
    "tr",
    { "data-instance-id": instance.id, "data-state": instance.state },
    el(
      "td",
      {},
      el("a", { href: `/instances/${encodeURIComponent(instance.id)}`, class: "label" }, instance.label),
      el("div", { class: "muted" }, instance.id),
    ),
    el("td", {}, `${instance.numGpus}× ${instance.gpuName}`),
    el("td", { class: "state" }, el("span", { class: `badge ${instance.state}` }, instance.state)),
    el("td", {}, phaseBar(instance, now)),
    el(
      "td",
      { class: "num pph" },
      formatNumber(instance.proofsPerHour),
      // Where the counted rate comes from, when it is not the benchmark: a suspect claim is on
      // probation at the model's rate; a machine that served a window counts at production.
      instance.rateBasis && instance.rateBasis !== "benchmark"
        ? el("div", { class: "muted basis" }, instance.rateBasis)
        : null,
    ),
    curioCell(instance),
    el("td", { class: "num" }, formatNumber(instance.dphPerHour, 3)),
    el("td", { class: "num" }, formatNumber(instance.dollarsPer1000Proofs, 2)),
    el(
      "td",
      { class: "muted" },
      instance.lastHeartbeatAt === null ? "–" : liveAge(instance.lastHeartbeatAt, now),
    ),
    el(
      "td",
      {},
      live ? actionButton("destroy", instance, act) : null,
      live && instance.machineId !== null ? actionButton("cordon", instance, act) : null,
    ),
  );
}

const instanceHeadings = [
  "Instance",
  "GPUs",
  "State",
  "Phase (elapsed / deadline)",
  "Proofs/h",
  "Curio/h",
  "$/h",
  "$/1000 proofs",
  "Heartbeat",
  "",
];

/** The instances panel: its filter, made once, and the table each refresh renders. */
export interface InstancesPanel {
  /** Renders the table from the refresh's list, destroyed instances folded away unless asked for. */
  render(instances: InstanceListView[], now: number, act: InstanceAction): void;
}

/** Builds the panel into `section`; `onFilter` runs when the operator toggles "show destroyed". */
export function instancesPanel(section: HTMLElement, onFilter: () => void): InstancesPanel {
  // The filter is made once and kept across refreshes: a click on a checkbox that a refresh has
  // just replaced would toggle the detached box and fire no change event (HTML: only a connected
  // checkbox fires input and change), so the operator's tick would be lost.
  let showDestroyed = false;
  const destroyedToggle = el("input", { type: "checkbox", id: "show-destroyed" });
  const destroyedCount = el("span", { class: "count" }, "0");
  destroyedToggle.addEventListener("change", () => {
    showDestroyed = destroyedToggle.checked;
    onFilter();
  });
  const instancesTable = el("div", { class: "table-host" });
  section.append(
    el("label", { class: "filter muted" }, destroyedToggle, " show destroyed (", destroyedCount, ")"),
    instancesTable,
  );
  return {
    render(instances, now, act) {
      // Destroyed instances are history: folded away unless asked for.
      const destroyed = instances.filter((i) => i.state === "destroyed").length;
      const shown = showDestroyed ? instances : instances.filter((i) => i.state !== "destroyed");
      destroyedCount.textContent = String(destroyed);
      replaceChildren(
        instancesTable,
        table(
          instanceHeadings,
          shown.map((i) => instanceRow(i, now, act)),
          { id: "instances-table" },
        ),
      );
    },
  };
}

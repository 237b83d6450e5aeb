/// <reference lib="dom" />
import type { MachineReport, MachinesReport } from "../manager/machines-report.js";
import { el, formatDuration, replaceChildren, table } from "./dom.js";

// The fleet page's machines panel: each machine's evidence, failure rate and exclusion; an
// excluded one has a lift button.

const percent = (rate: number) => `${(rate * 100).toFixed(1)}%`;

const minute = (at: number) => new Date(at).toISOString().slice(0, 16).replace("T", " ");

/** One machine with its evidence, failure rate and exclusion; an excluded one has a lift button. */
function machineRow(m: MachineReport, lift: (machineId: number) => void): HTMLTableRowElement {
  const status = !m.excluded
    ? "ok"
    : m.excludedUntil === undefined
      ? "excluded until lifted"
      : `excluded until ${minute(m.excludedUntil)}`;
  let button: HTMLButtonElement | null = null;
  if (m.excluded) {
    button = el("button", { type: "button", class: "action lift", "data-action": "lift" }, "lift");
    button.addEventListener("click", () => lift(m.machineId));
  }
  return el(
    "tr",
    { "data-machine-id": String(m.machineId), "data-excluded": m.excluded ? "yes" : "no" },
    el("td", {}, String(m.machineId)),
    el("td", {}, m.hostId === undefined ? "–" : String(m.hostId)),
    el("td", { class: "num" }, String(m.rentals)),
    el("td", { class: "num" }, String(m.failures)),
    el("td", { class: "num" }, percent(m.failureRate)),
    el("td", { class: "num" }, percent(m.hostFailureRate)),
    el("td", {}, el("span", { class: m.excluded ? "badge failed" : "badge active" }, status)),
    el(
      "td",
      {},
      el(
        "ul",
        { class: "evidence" },
        ...m.evidence.map((e) =>
          el(
            "li",
            { class: e.counts ? "" : "muted" },
            `${minute(e.at)} ${e.kind}${e.counts ? "" : " (not the machine's)"}: ${e.reason}`,
          ),
        ),
      ),
    ),
    el("td", {}, button),
  );
}

/** Renders the machines panel from the refresh's report. */
export function renderMachines(
  machines: HTMLElement,
  report: MachinesReport,
  lift: (machineId: number) => void,
): void {
  replaceChildren(
    machines,
    report.machines.length === 0
      ? el("p", { class: "muted" }, "No machine has rentals or evidence yet.")
      : table(
          ["Machine", "Host", "Rentals", "Failures", "Fail rate", "Host rate", "Status", "Evidence", ""],
          report.machines.map((m) => machineRow(m, lift)),
          { id: "machines-table" },
        ),
    el(
      "p",
      { class: "muted" },
      `Fleet failure rate ${percent(report.fleetFailureRate)}; an exclusion lasts ${formatDuration(report.exclusionPeriodMs)} after its evidence.`,
    ),
  );
}

/// <reference lib="dom" />
import type { EventView, FleetSummary, HostPerformanceView } from "../server/dashboard-views.js";
import { el, formatNumber, replaceChildren, table } from "./dom.js";

// The fleet page's small panels, each rendered whole from the refresh's reads: the summary
// line, the host performance table and the event log.

/** The summary: the fleet's proofs/hour, its $/hour and a badge per occupied state. */
export function renderSummary(summary: HTMLElement, s: FleetSummary): void {
  const counts = Object.entries(s.countsByState).filter(([, n]) => n > 0);
  replaceChildren(
    summary,
    el("span", { class: "stat" }, `${formatNumber(s.proofsPerHour)} proofs/h`),
    el("span", { class: "stat" }, `$${formatNumber(s.dollarsPerHour, 3)}/h`),
    ...counts.map(([state, n]) => el("span", { class: `badge ${state}` }, `${state} ${n}`)),
  );
}

function hostRow(h: HostPerformanceView): HTMLTableRowElement {
  return el(
    "tr",
    {},
    el("td", {}, h.instanceId),
    el("td", {}, h.machineId === null ? "–" : String(h.machineId)),
    el("td", {}, `${h.numGpus ?? "?"}× ${h.gpuName ?? "?"}`),
    el("td", {}, h.geolocation ?? "–"),
    el("td", {}, h.verdict),
    el("td", { class: "num" }, formatNumber(h.proofsPerHour)),
    el("td", { class: "num" }, formatNumber(h.dphPerHour, 3)),
    el("td", { class: "num" }, formatNumber(h.dollarsPer1000Proofs, 2)),
    el("td", { class: "muted" }, new Date(h.at).toISOString().slice(0, 16)),
  );
}

/** The host performance table: every benchmarked host with its rate and cost. */
export function renderHosts(hosts: HTMLElement, perf: { hosts: HostPerformanceView[] }): void {
  replaceChildren(
    hosts,
    table(
      ["Instance", "Machine", "GPUs", "Where", "Verdict", "Proofs/h", "$/h", "$/1000 proofs", "When"],
      perf.hosts.map(hostRow),
      { id: "hosts-table" },
    ),
  );
}

function eventLine(e: EventView): HTMLLIElement {
  const move =
    e.fromState !== null || e.toState !== null ? ` ${e.fromState ?? "·"} → ${e.toState ?? "·"}` : "";
  const detail = e.detail === null ? "" : ` ${JSON.stringify(e.detail)}`;
  return el(
    "li",
    { "data-seq": String(e.seq) },
    el("time", {}, new Date(e.at).toISOString().replace("T", " ").slice(0, 19)),
    " ",
    el("a", { href: `/instances/${encodeURIComponent(e.instanceId)}` }, e.instanceId),
    " ",
    el("strong", {}, e.type),
    move,
    el("span", { class: "muted" }, detail),
  );
}

/** The event log, newest first. */
export function renderEvents(events: HTMLElement, log: { events: EventView[] }): void {
  replaceChildren(events, ...log.events.slice().reverse().map(eventLine));
}

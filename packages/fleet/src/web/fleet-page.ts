// shape-exception: the fleet page's panels
/// <reference lib="dom" />
import type uPlot from "uplot";
import { curioRatesText } from "../curio/curio-rate.js";
import type { MachineReport, MachinesReport } from "../manager/machines-report.js";
import type {
  EventView,
  ExcludedOfferView,
  FleetSummary,
  HostPerformanceView,
  InstanceListView,
  InstanceView,
  OfferView,
  ProofsPerHourSeries,
  SpendSeries,
} from "../server/dashboard-views.js";
import { ApiError, followStream, getJson, postJson } from "./api.js";
import { lineChart } from "./charts.js";
import { confirmAction } from "./confirm-action.js";
import { el, formatDuration, formatNumber, replaceChildren, table } from "./dom.js";
import { header, notice } from "./layout.js";
import { liveAge, liveness, startAgeTicker } from "./liveness.js";
import { createPaintOrder } from "./paint-order.js";
import { inRange, rangeSelect } from "./time-range.js";

type OfferEstimate = OfferView["source"];

/** A rate cell of the offers overlay; the estimate the ranking uses is marked. */
function rateCell(
  value: number | null,
  estimate: OfferEstimate,
  used: OfferEstimate,
  suffix = "",
): HTMLElement {
  return el(
    "td",
    { class: estimate === used ? "num used" : "num", "data-estimate": estimate },
    value === null ? "–" : `${formatNumber(value)}${suffix}`,
  );
}

/** The ranked offers with their overlay, as `cuzkit fleet offers` prints it, and those left out. */
function offersOverlay(ranked: { offers: OfferView[]; excluded: ExcludedOfferView[] }): Node[] {
  const rows = ranked.offers.map((o) =>
    el(
      "tr",
      { "data-offer-id": String(o.offerId), "data-source": o.source },
      el("td", {}, String(o.offerId)),
      el("td", {}, o.machineId === null ? "–" : String(o.machineId)),
      el("td", {}, `${o.numGpus}× ${o.gpuName}`),
      el("td", {}, o.geolocation ?? "–"),
      el("td", { class: "fits" }, "yes"),
      rateCell(o.predictedProofsPerHour, "predicted", o.source),
      rateCell(o.correctedProofsPerHour, "corrected", o.source),
      rateCell(
        o.measuredProofsPerHour,
        "measured",
        o.source,
        o.measuredProofsPerHour === null ? "" : ` (${o.measuredRuns})`,
      ),
      el("td", { class: "source" }, o.source),
      el("td", { class: "num" }, `${formatNumber(o.dphPerHour, 3)}${o.interruptible ? " (bid)" : ""}`),
      el("td", { class: "num cost" }, formatNumber(o.costPer1000, 2)),
      el("td", { class: "num" }, formatNumber(o.reliability, 2)),
      el("td", { class: "num keep-at" }, formatNumber(o.keepMinimumProofsPerHour)),
      el("td", { class: "muted" }, o.worthTrying ? "worth trying" : ""),
    ),
  );
  const out: Node[] = [
    table(
      [
        "Offer",
        "Machine",
        "GPUs",
        "Where",
        "Fits",
        "Predicted (model)",
        "Corrected (class)",
        "Measured (runs)",
        "Used",
        "$/h",
        "$ per 1000 proofs",
        "Reliability",
        "Kept at (proofs/h)",
        "",
      ],
      rows,
      { id: "offers-table" },
    ),
    el(
      "p",
      { class: "muted" },
      "Proofs/hour: the tuner's model, corrected by its hardware class's benchmarks, and measured on this very machine; the ranking uses the best-informed one (bold). $ per 1000 proofs includes the reliability. Kept at: the rate an offer must measure to be kept (the fleet's minimum, or its price over the $ per 1000 proofs ceiling).",
    ),
  ];
  if (ranked.excluded.length > 0) {
    out.push(
      el("h3", {}, `Left out (${ranked.excluded.length})`),
      table(
        ["Offer", "Machine", "GPUs", "Fits", "Why"],
        ranked.excluded.map((x) =>
          el(
            "tr",
            { "data-offer-id": String(x.offerId) },
            el("td", {}, String(x.offerId)),
            el("td", {}, x.machineId === null ? "–" : String(x.machineId)),
            el("td", {}, `${x.numGpus}× ${x.gpuName}`),
            el("td", { class: "fits" }, "no"),
            el("td", { class: "muted" }, x.reason),
          ),
        ),
        { id: "excluded-offers-table" },
      ),
    );
  }
  return out;
}

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

function instanceRow(
  instance: InstanceListView,
  now: number,
  act: (instance: InstanceListView, action: string) => void,
): HTMLTableRowElement {
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
    el(
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
    ),
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

function actionButton(
  action: string,
  instance: InstanceListView,
  act: (instance: InstanceListView, action: string) => void,
): HTMLButtonElement {
  const button = el("button", { type: "button", class: `action ${action}`, "data-action": action }, action);
  button.addEventListener("click", () => act(instance, action));
  return button;
}

const percent = (rate: number) => `${(rate * 100).toFixed(1)}%`;

/** One machine with its evidence, failure rate and exclusion; an excluded one has a lift button. */
function machineRow(m: MachineReport, lift: (machineId: number) => void): HTMLTableRowElement {
  const status = !m.excluded
    ? "ok"
    : m.excludedUntil === undefined
      ? "excluded until lifted"
      : `excluded until ${new Date(m.excludedUntil).toISOString().slice(0, 16).replace("T", " ")}`;
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
            `${new Date(e.at).toISOString().slice(0, 16).replace("T", " ")} ${e.kind}${e.counts ? "" : " (not the machine's)"}: ${e.reason}`,
          ),
        ),
      ),
    ),
    el("td", {}, button),
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

/** How often the ranked offers are fetched again, ms. */
const offersRefreshMs = 60_000;

/** The fleet page: instances, chart, hosts, offers, events; refreshed by the live stream. */
// shape-exception: the page's panels share its state and refresh loop
export function fleetPage(root: HTMLElement): void {
  const summary = el("section", { id: "summary", class: "summary" });
  const instances = el("section", { id: "instances" });
  const chartHost = el("div", { id: "pph-chart", class: "chart" });
  const spendHost = el("div", { id: "spend-chart", class: "chart" });
  const costHost = el("div", { id: "cost-chart", class: "chart" });
  const range = rangeSelect(() => void refresh());
  const hosts = el("section", { id: "hosts" });
  const machines = el("section", { id: "machines" });
  const offers = el("section", { id: "offers" });
  const events = el("ol", { id: "events", class: "events" });
  const status = notice();
  const live = liveness();
  root.append(
    header("cuzkit fleet", status.element, live.element),
    summary,
    el("h2", {}, "Instances"),
    instances,
    el("h2", {}, "Proofs/hour and spend ", range.element),
    chartHost,
    spendHost,
    costHost,
    el("h2", {}, "Host performance"),
    hosts,
    el("h2", {}, "Machines: evidence and exclusions"),
    machines,
    el("h2", {}, "Ranked offers"),
    offers,
    el("h2", {}, "Events"),
    events,
  );
  let chart: uPlot | undefined;
  let spendChart: uPlot | undefined;
  let costChart: uPlot | undefined;

  const act = async (instance: InstanceListView, action: string) => {
    const { id } = instance;
    // Nothing is sent until the operator has read what it will do.
    if (!(await confirmAction(action, instance))) {
      status.show(`${action}: ${id} cancelled`, "ok");
      return;
    }
    try {
      await postJson(`/api/instances/${encodeURIComponent(id)}/${action}`);
      status.show(`${action}: ${id} accepted`, "ok");
    } catch (error) {
      status.show(
        error instanceof ApiError ? `${action} refused: ${error.message}` : `${action} failed`,
        "error",
      );
    }
    await refresh();
  };

  const lift = async (machineId: number) => {
    try {
      await postJson(`/api/machines/${machineId}/lift`);
      status.show(`lift: machine ${machineId} accepted`, "ok");
    } catch (error) {
      status.show(error instanceof ApiError ? `lift refused: ${error.message}` : "lift failed", "error");
    }
    await refresh();
  };

  // The filter is made once and kept across refreshes: a click on a checkbox that a refresh has
  // just replaced would toggle the detached box and fire no change event (HTML: only a connected
  // checkbox fires input and change), so the operator's tick would be lost.
  let showDestroyed = false;
  const destroyedToggle = el("input", { type: "checkbox", id: "show-destroyed" });
  const destroyedCount = el("span", { class: "count" }, "0");
  destroyedToggle.addEventListener("change", () => {
    showDestroyed = destroyedToggle.checked;
    void refresh();
  });
  const instancesTable = el("div", { class: "table-host" });
  instances.append(
    el("label", { class: "filter muted" }, destroyedToggle, " show destroyed (", destroyedCount, ")"),
    instancesTable,
  );
  /** How soon a refresh whose reads failed is tried again, ms. */
  const refreshRetryMs = 2_000;
  const reads = createPaintOrder();
  // shape-exception: one refresh renders every panel from one set of reads
  const refresh = async () => {
    const mayPaint = reads.begin();
    try {
      const [s, list, allSeries, allSpend, log, perf, report] = await Promise.all([
        getJson<FleetSummary & { readsNeedToken: boolean }>("/api/summary"),
        getJson<{ instances: InstanceListView[] }>("/api/instances"),
        getJson<ProofsPerHourSeries>("/api/proofs-per-hour"),
        getJson<SpendSeries>("/api/spend"),
        getJson<{ events: EventView[] }>("/api/events?limit=100"),
        getJson<{ hosts: HostPerformanceView[] }>("/api/host-performance"),
        getJson<MachinesReport>("/api/machines"),
      ]);
      // A refresh begun later has already painted newer rows: this one is stale.
      if (!mayPaint()) return;
      const counts = Object.entries(s.countsByState).filter(([, n]) => n > 0);
      replaceChildren(
        summary,
        el("span", { class: "stat" }, `${formatNumber(s.proofsPerHour)} proofs/h`),
        el("span", { class: "stat" }, `$${formatNumber(s.dollarsPerHour, 3)}/h`),
        ...counts.map(([state, n]) => el("span", { class: `badge ${state}` }, `${state} ${n}`)),
      );
      // Destroyed instances are history: folded away unless asked for.
      const destroyed = list.instances.filter((i) => i.state === "destroyed").length;
      const shown = showDestroyed ? list.instances : list.instances.filter((i) => i.state !== "destroyed");
      destroyedCount.textContent = String(destroyed);
      replaceChildren(
        instancesTable,
        table(
          [
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
          ],
          shown.map((i) => instanceRow(i, s.now, (instance, a) => void act(instance, a))),
          { id: "instances-table" },
        ),
      );
      // The charts show the chosen range (the last hour, day, week, or everything).
      const series = inRange(allSeries, range.sinceSeconds(s.now));
      const spend = inRange(allSpend, range.sinceSeconds(s.now));
      if (spend.times.length > 1) {
        spendChart = lineChart(
          spendHost,
          spendChart,
          spend.times,
          [{ label: "fleet $/h", values: spend.dollarsPerHour, bold: true }],
          {
            yLabel: "$/hour",
            time: true,
          },
        );
        costChart = lineChart(
          costHost,
          costChart,
          spend.times,
          [{ label: "$ per 1000 proofs", values: spend.dollarsPer1000Proofs, bold: true }],
          { yLabel: "$ per 1000 proofs", time: true },
        );
      } else {
        replaceChildren(spendHost, el("p", { class: "muted" }, "Nothing billed in this range."));
        replaceChildren(costHost);
        spendChart = undefined;
        costChart = undefined;
      }
      if (series.times.length > 1 && series.lines.length > 0) {
        chart = lineChart(
          chartHost,
          chart,
          series.times,
          [
            { label: "fleet", values: series.fleet, bold: true },
            ...series.lines.map((l) => ({ label: l.label, values: l.values })),
          ],
          { yLabel: "proofs/hour", time: true },
        );
      } else {
        replaceChildren(chartHost, el("p", { class: "muted" }, "No benchmarked instance yet."));
      }
      replaceChildren(
        hosts,
        table(
          ["Instance", "Machine", "GPUs", "Where", "Verdict", "Proofs/h", "$/h", "$/1000 proofs", "When"],
          perf.hosts.map((h) =>
            el(
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
            ),
          ),
          { id: "hosts-table" },
        ),
      );
      replaceChildren(
        machines,
        report.machines.length === 0
          ? el("p", { class: "muted" }, "No machine has rentals or evidence yet.")
          : table(
              ["Machine", "Host", "Rentals", "Failures", "Fail rate", "Host rate", "Status", "Evidence", ""],
              report.machines.map((m) => machineRow(m, (id) => void lift(id))),
              { id: "machines-table" },
            ),
        el(
          "p",
          { class: "muted" },
          `Fleet failure rate ${percent(report.fleetFailureRate)}; an exclusion lasts ${formatDuration(report.exclusionPeriodMs)} after its evidence.`,
        ),
      );
      replaceChildren(events, ...log.events.slice().reverse().map(eventLine));
    } catch (error) {
      status.show(error instanceof ApiError ? error.message : "the manager did not answer", "error");
      // The stream may send nothing more: a failed read is tried again rather than left stale.
      setTimeout(() => void refresh(), refreshRetryMs);
    }
  };

  const loadOffers = async () => {
    try {
      const ranked = await getJson<{ offers: OfferView[]; excluded: ExcludedOfferView[] }>("/api/offers");
      replaceChildren(offers, ...offersOverlay(ranked));
    } catch (error) {
      replaceChildren(
        offers,
        el("p", { class: "muted" }, error instanceof ApiError ? error.message : "offers unavailable"),
      );
    }
  };

  let pending = false;
  const scheduleRefresh = () => {
    if (pending) return;
    pending = true;
    setTimeout(() => {
      pending = false;
      void refresh();
    }, 100);
  };
  void refresh();
  void loadOffers();
  // Offers come and go on Vast: refreshed on their own interval (the stream says nothing of them).
  setInterval(() => void loadOffers(), offersRefreshMs);
  startAgeTicker();
  followStream(
    (type, data) => {
      live.heard(type, data);
      if (type === "change" || type === "tick") scheduleRefresh();
    },
    (connected) => live.connected(connected),
  );
}

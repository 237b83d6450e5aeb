/// <reference lib="dom" />
import type { MachinesReport } from "../manager/machines-report.js";
import type {
  EventView,
  FleetSummary,
  HostPerformanceView,
  InstanceListView,
  ProofsPerHourSeries,
  SpendSeries,
} from "../server/dashboard-views.js";
import { ApiError, followStream, getJson, postJson } from "./api.js";
import { confirmAction } from "./confirm-action.js";
import { el } from "./dom.js";
import { type FleetCharts, fleetCharts, renderCharts } from "./fleet-charts-panel.js";
import { type InstancesPanel, instancesPanel } from "./fleet-instances-panel.js";
import { renderMachines } from "./fleet-machines-panel.js";
import { loadOffers } from "./fleet-offers-panel.js";
import { renderEvents, renderHosts, renderSummary } from "./fleet-panels.js";
import { header, notice } from "./layout.js";
import { liveness, startAgeTicker } from "./liveness.js";
import { createPaintOrder } from "./paint-order.js";
import { inRange, rangeSelect } from "./time-range.js";

// The fleet page: a layout of panels (summary, instances, charts, hosts, machines, offers,
// events), each rendered by its own module from one set of reads per refresh; refreshed by the
// live stream, the offers on their own interval.

/** How often the ranked offers are fetched again, ms. */
const offersRefreshMs = 60_000;
/** How soon a refresh whose reads failed is tried again, ms. */
const refreshRetryMs = 2_000;

/** The page's panels and what they share: the status notice and the chosen time range. */
interface FleetPageState {
  summary: HTMLElement;
  instances: InstancesPanel;
  charts: FleetCharts;
  range: ReturnType<typeof rangeSelect>;
  hosts: HTMLElement;
  machines: HTMLElement;
  offers: HTMLElement;
  events: HTMLElement;
  status: ReturnType<typeof notice>;
  live: ReturnType<typeof liveness>;
}

/** Reads and paints every panel again (the live stream, an action, the filter). */
type Refresh = () => Promise<void>;

/** One refresh's reads, fetched together. */
interface FleetReads {
  summary: FleetSummary & { readsNeedToken: boolean };
  list: { instances: InstanceListView[] };
  series: ProofsPerHourSeries;
  spend: SpendSeries;
  log: { events: EventView[] };
  perf: { hosts: HostPerformanceView[] };
  report: MachinesReport;
}

async function readFleet(): Promise<FleetReads> {
  const [summary, list, series, spend, log, perf, report] = await Promise.all([
    getJson<FleetSummary & { readsNeedToken: boolean }>("/api/summary"),
    getJson<{ instances: InstanceListView[] }>("/api/instances"),
    getJson<ProofsPerHourSeries>("/api/proofs-per-hour"),
    getJson<SpendSeries>("/api/spend"),
    getJson<{ events: EventView[] }>("/api/events?limit=100"),
    getJson<{ hosts: HostPerformanceView[] }>("/api/host-performance"),
    getJson<MachinesReport>("/api/machines"),
  ]);
  return { summary, list, series, spend, log, perf, report };
}

/** Posts an instance's action once the operator confirmed it, then refreshes. */
async function act(
  page: FleetPageState,
  refresh: Refresh,
  instance: InstanceListView,
  action: string,
): Promise<void> {
  const { id } = instance;
  // Nothing is sent until the operator has read what it will do.
  if (!(await confirmAction(action, instance))) {
    page.status.show(`${action}: ${id} cancelled`, "ok");
    return;
  }
  try {
    await postJson(`/api/instances/${encodeURIComponent(id)}/${action}`);
    page.status.show(`${action}: ${id} accepted`, "ok");
  } catch (error) {
    page.status.show(
      error instanceof ApiError ? `${action} refused: ${error.message}` : `${action} failed`,
      "error",
    );
  }
  await refresh();
}

/** Lifts a machine's exclusion, then refreshes. */
async function lift(page: FleetPageState, refresh: Refresh, machineId: number): Promise<void> {
  try {
    await postJson(`/api/machines/${machineId}/lift`);
    page.status.show(`lift: machine ${machineId} accepted`, "ok");
  } catch (error) {
    page.status.show(error instanceof ApiError ? `lift refused: ${error.message}` : "lift failed", "error");
  }
  await refresh();
}

/** Renders every panel from one refresh's reads. */
function paint(page: FleetPageState, refresh: Refresh, reads: FleetReads): void {
  const now = reads.summary.now;
  renderSummary(page.summary, reads.summary);
  page.instances.render(reads.list.instances, now, (instance, a) => void act(page, refresh, instance, a));
  // The charts show the chosen range (the last hour, day, week, or everything).
  const since = page.range.sinceSeconds(now);
  renderCharts(page.charts, inRange(reads.series, since), inRange(reads.spend, since));
  renderHosts(page.hosts, reads.perf);
  renderMachines(page.machines, reads.report, (id) => void lift(page, refresh, id));
  renderEvents(page.events, reads.log);
}

/** The page's refresh: reads everything, paints unless a later refresh already did, retries on failure. */
function refresher(page: FleetPageState): Refresh {
  const order = createPaintOrder();
  const refresh = async (): Promise<void> => {
    const mayPaint = order.begin();
    try {
      const reads = await readFleet();
      // A refresh begun later has already painted newer rows: this one is stale.
      if (!mayPaint()) return;
      paint(page, refresh, reads);
    } catch (error) {
      page.status.show(error instanceof ApiError ? error.message : "the manager did not answer", "error");
      // The stream may send nothing more: a failed read is tried again rather than left stale.
      setTimeout(() => void refresh(), refreshRetryMs);
    }
  };
  return refresh;
}

/** The page's panels laid out in `root`. */
function layOut(root: HTMLElement, refresh: () => void): FleetPageState {
  const instancesSection = el("section", { id: "instances" });
  const page: FleetPageState = {
    summary: el("section", { id: "summary", class: "summary" }),
    instances: instancesPanel(instancesSection, refresh),
    charts: fleetCharts(),
    range: rangeSelect(refresh),
    hosts: el("section", { id: "hosts" }),
    machines: el("section", { id: "machines" }),
    offers: el("section", { id: "offers" }),
    events: el("ol", { id: "events", class: "events" }),
    status: notice(),
    live: liveness(),
  };
  root.append(
    header("cuzkit fleet", page.status.element, page.live.element),
    page.summary,
    el("h2", {}, "Instances"),
    instancesSection,
    el("h2", {}, "Proofs/hour and spend ", page.range.element),
    page.charts.chartHost,
    page.charts.spendHost,
    page.charts.costHost,
    el("h2", {}, "Host performance"),
    page.hosts,
    el("h2", {}, "Machines: evidence and exclusions"),
    page.machines,
    el("h2", {}, "Ranked offers"),
    page.offers,
    el("h2", {}, "Events"),
    page.events,
  );
  return page;
}

/** The fleet page: instances, chart, hosts, offers, events; refreshed by the live stream. */
export function fleetPage(root: HTMLElement): void {
  // The filter and the range call refresh only on the operator's input, after it is made.
  const page = layOut(root, () => void refresh());
  const refresh = refresher(page);
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
  void loadOffers(page.offers);
  // Offers come and go on Vast: refreshed on their own interval (the stream says nothing of them).
  setInterval(() => void loadOffers(page.offers), offersRefreshMs);
  startAgeTicker();
  followStream(
    (type, data) => {
      page.live.heard(type, data);
      if (type === "change" || type === "tick") scheduleRefresh();
    },
    (connected) => page.live.connected(connected),
  );
}

/// <reference lib="dom" />
import type uPlot from "uplot";
import type { ProofsPerHourSeries, SpendSeries } from "../server/dashboard-views.js";
import { lineChart } from "./charts.js";
import { el, replaceChildren } from "./dom.js";

// The fleet page's charts: proofs/hour, fleet spend and $ per 1000 proofs over the chosen range.
// Each chart is kept across refreshes (lineChart destroys the previous one it is given).

/** The chart hosts and the charts drawn in them. */
export interface FleetCharts {
  chartHost: HTMLElement;
  spendHost: HTMLElement;
  costHost: HTMLElement;
  chart: uPlot | undefined;
  spendChart: uPlot | undefined;
  costChart: uPlot | undefined;
}

/** The three chart hosts, nothing drawn yet. */
export function fleetCharts(): FleetCharts {
  return {
    chartHost: el("div", { id: "pph-chart", class: "chart" }),
    spendHost: el("div", { id: "spend-chart", class: "chart" }),
    costHost: el("div", { id: "cost-chart", class: "chart" }),
    chart: undefined,
    spendChart: undefined,
    costChart: undefined,
  };
}

/** Draws the spend and cost charts, or says nothing was billed in the range. */
function renderSpend(charts: FleetCharts, spend: SpendSeries): void {
  if (spend.times.length > 1) {
    charts.spendChart = lineChart(
      charts.spendHost,
      charts.spendChart,
      spend.times,
      [{ label: "fleet $/h", values: spend.dollarsPerHour, bold: true }],
      { yLabel: "$/hour", time: true },
    );
    charts.costChart = lineChart(
      charts.costHost,
      charts.costChart,
      spend.times,
      [{ label: "$ per 1000 proofs", values: spend.dollarsPer1000Proofs, bold: true }],
      { yLabel: "$ per 1000 proofs", time: true },
    );
  } else {
    replaceChildren(charts.spendHost, el("p", { class: "muted" }, "Nothing billed in this range."));
    replaceChildren(charts.costHost);
    charts.spendChart = undefined;
    charts.costChart = undefined;
  }
}

/** Draws the proofs/hour chart (the fleet's and each instance's), or says none is benchmarked. */
function renderProofsPerHour(charts: FleetCharts, series: ProofsPerHourSeries): void {
  if (series.times.length > 1 && series.lines.length > 0) {
    charts.chart = lineChart(
      charts.chartHost,
      charts.chart,
      series.times,
      [
        { label: "fleet", values: series.fleet, bold: true },
        ...series.lines.map((l) => ({ label: l.label, values: l.values })),
      ],
      { yLabel: "proofs/hour", time: true },
    );
  } else {
    replaceChildren(charts.chartHost, el("p", { class: "muted" }, "No benchmarked instance yet."));
  }
}

/** Renders the charts from the refresh's series, already cut to the chosen range. */
export function renderCharts(charts: FleetCharts, series: ProofsPerHourSeries, spend: SpendSeries): void {
  renderSpend(charts, spend);
  renderProofsPerHour(charts, series);
}

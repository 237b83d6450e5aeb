/// <reference lib="dom" />
import type uPlot from "uplot";
import type { InstanceDetailView } from "../server/dashboard-views.js";
import { lineChart } from "./charts.js";
import { el, formatDuration, formatNumber, replaceChildren, table } from "./dom.js";

// The instance page's panels drawn from its detail read: the facts line, the phases table and
// the benchmark's latency chart with its verdict.

type InstanceDetail = InstanceDetailView;

/** The facts: state, GPUs, the counted rate and its evidence, price and cost, and the reason. */
export function renderFacts(facts: HTMLElement, d: InstanceDetail): void {
  const i = d.instance;
  replaceChildren(
    facts,
    el("span", { class: `badge ${i.state}`, id: "instance-state" }, i.state),
    d.local ? null : el("span", { class: "stat" }, `${i.numGpus}× ${i.gpuName}`),
    el(
      "span",
      { class: "stat", id: "instance-rate" },
      `${formatNumber(i.proofsPerHour)} proofs/h${i.rateBasis ? ` (${i.rateBasis})` : ""}`,
    ),
    i.claimedProofsPerHour === null || i.claimedProofsPerHour === undefined
      ? null
      : el(
          "span",
          { class: "muted", id: "instance-evidence" },
          `claimed ${formatNumber(i.claimedProofsPerHour)}, records ${formatNumber(i.benchmarkProofsPerHour ?? null)}, model ${formatNumber(i.modelProofsPerHour ?? null)}, production ${formatNumber(i.productionProofsPerHour ?? null)} proofs/h`,
        ),
    d.local ? null : el("span", { class: "stat" }, `$${formatNumber(i.dphPerHour, 3)}/h`),
    d.local
      ? null
      : el("span", { class: "stat" }, `$${formatNumber(i.dollarsPer1000Proofs, 2)} per 1000 proofs`),
    i.reason === null ? null : el("span", { class: "muted" }, i.reason),
  );
}

/** The phases: each state entered, when, and how long it lasted (the last one until now). */
export function renderPhases(phases: HTMLElement, d: InstanceDetail): void {
  const rows = d.phases.map((p, n) => {
    const next = d.phases[n + 1]?.at ?? d.now;
    return el(
      "tr",
      {},
      el("td", {}, p.state),
      el("td", {}, new Date(p.at).toISOString().slice(0, 19)),
      el("td", { class: "num" }, formatDuration(next - p.at)),
      el("td", { class: "muted" }, p.type),
    );
  });
  replaceChildren(phases, table(["Phase", "Entered", "Lasted", "Event"], rows, { id: "phases-table" }));
}

/** The benchmark panel's hosts and its chart, kept across refreshes. */
export interface BenchmarkPanel {
  chartHost: HTMLElement;
  proofs: HTMLElement;
  chart: uPlot | undefined;
}

/** The benchmark's per-proof latencies and its verdict, or that there is none yet. */
export function renderBenchmark(panel: BenchmarkPanel, d: InstanceDetail): void {
  const timed = d.benchmark?.proofs.filter((p) => p.wallMs !== null) ?? [];
  if (d.benchmark !== null && timed.length > 0) {
    panel.chart = lineChart(
      panel.chartHost,
      panel.chart,
      timed.map((p, n) => p.index ?? n),
      [{ label: "latency (s)", values: timed.map((p) => (p.wallMs as number) / 1000) }],
      { yLabel: "seconds per proof", time: false },
    );
    const failed = d.benchmark.proofs.filter((p) => !p.ok).length;
    replaceChildren(
      panel.proofs,
      el(
        "p",
        {},
        `${d.benchmark.verdict}: ${formatNumber(d.benchmark.proofsPerHour)} proofs/h (minimum ${formatNumber(d.benchmark.minProofsPerHour)}), ${d.benchmark.proofs.length} proofs, ${failed} failed`,
      ),
    );
  } else {
    replaceChildren(panel.chartHost, el("p", { class: "muted" }, "No benchmark yet."));
  }
}

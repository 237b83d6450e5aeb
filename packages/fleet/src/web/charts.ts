/// <reference lib="dom" />
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";

// Charts with uPlot (small, maintained, canvas): proofs/hour over time, proof latencies.

const palette = ["#2563eb", "#dc2626", "#16a34a", "#9333ea", "#ea580c", "#0891b2", "#be185d", "#4d7c0f"];

/** Draws (or redraws) a time chart into `host`: one line per series, x in epoch seconds. */
export function lineChart(
  host: HTMLElement,
  previous: uPlot | undefined,
  x: number[],
  series: { label: string; values: (number | null)[]; bold?: boolean }[],
  options: { yLabel: string; time: boolean },
): uPlot {
  previous?.destroy();
  const width = Math.max(320, host.clientWidth || 720);
  return new uPlot(
    {
      width,
      height: 240,
      scales: { x: { time: options.time } },
      axes: [{}, { label: options.yLabel }],
      series: [
        {},
        ...series.map((s, i) => ({
          // uPlot writes labels into the legend with textContent.
          label: s.label,
          stroke: s.bold ? "#111827" : (palette[i % palette.length] as string),
          width: s.bold ? 3 : 1.5,
          spanGaps: false,
        })),
      ],
    },
    [x, ...series.map((s) => s.values)] as uPlot.AlignedData,
    host,
  );
}

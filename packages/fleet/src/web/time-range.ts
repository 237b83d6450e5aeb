/// <reference lib="dom" />
import { el } from "./dom.js";

/** The ranges the charts offer, seconds (0: everything). */
const ranges: readonly [string, number][] = [
  ["last hour", 3600],
  ["last 6 hours", 6 * 3600],
  ["last day", 86_400],
  ["last week", 7 * 86_400],
  ["everything", 0],
];

/** A select of the charts' time range (default the last day); `onChange` redraws. */
export function rangeSelect(onChange: () => void): {
  element: HTMLSelectElement;
  /** The range's start in epoch seconds given the server's now (ms); 0 for everything. */
  sinceSeconds(serverNowMs: number): number;
} {
  const element = el(
    "select",
    { id: "chart-range", "aria-label": "time range of the charts" },
    ...ranges.map(([label, seconds]) => el("option", { value: String(seconds) }, label)),
  );
  element.value = String(86_400);
  element.addEventListener("change", onChange);
  return {
    element,
    sinceSeconds(serverNowMs) {
      const seconds = Number(element.value);
      return seconds === 0 ? 0 : serverNowMs / 1000 - seconds;
    },
  };
}

/**
 * The points of a time series from `since` (epoch seconds) on, every array field cut alike. The
 * value just before `since` is kept at `since` so a line that started earlier still shows.
 */
export function inRange<T extends { times: number[] }>(series: T, since: number): T {
  const first = series.times.findIndex((t) => t >= since);
  if (since <= 0 || first <= 0) return first < 0 ? cut(series, series.times.length - 1) : series;
  return cut(series, first - 1, since);
}

function cut<T extends { times: number[] }>(series: T, from: number, startAt?: number): T {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(series)) {
    if (key === "times") {
      const times = series.times.slice(from);
      if (startAt !== undefined && times.length > 0) times[0] = startAt;
      out[key] = times;
    } else if (key === "lines" && Array.isArray(value)) {
      const lines = value as unknown as { values: unknown[] }[];
      out[key] = lines.map((line) => ({ ...line, values: line.values.slice(from) }));
    } else if (Array.isArray(value) && value.length === series.times.length) out[key] = value.slice(from);
    else out[key] = value;
  }
  return out as T;
}

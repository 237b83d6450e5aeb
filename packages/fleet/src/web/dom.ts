/// <reference lib="dom" />
// DOM helpers for the dashboard. Data is attacker-controlled text (instance labels, log lines):
// it goes into the page only as textContent or attribute values, never as markup.

type Child = Node | string | number | null | undefined;

/** Creates an element with attributes and children; strings become text nodes. */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, string> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  for (const child of children) {
    if (child === null || child === undefined) continue;
    node.append(typeof child === "number" ? String(child) : child);
  }
  return node;
}

/** Replaces an element's children. */
export function replaceChildren(parent: Element, ...children: Child[]): void {
  parent.replaceChildren(
    ...children
      .filter((c): c is Node | string => c !== null && c !== undefined)
      .map((c) => (typeof c === "number" ? String(c) : c)),
  );
}

/** A duration as people read it: 42s, 5m 3s, 2h 10m. */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${s % 60}s`;
  return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`;
}

/** A number with `digits` decimals, or a dash for null. */
export function formatNumber(value: number | null | undefined, digits = 1): string {
  return value === null || value === undefined ? "–" : value.toFixed(digits);
}

/** Bytes as GiB. */
export function formatGiB(bytes: number | null | undefined): string {
  return bytes === null || bytes === undefined ? "–" : `${(bytes / 2 ** 30).toFixed(1)} GiB`;
}

/** A table with a header row and body rows. */
export function table(
  headers: string[],
  rows: Node[],
  attributes: Record<string, string> = {},
): HTMLTableElement {
  return el(
    "table",
    attributes,
    el("thead", {}, el("tr", {}, ...headers.map((h) => el("th", {}, h)))),
    el("tbody", {}, ...rows),
  );
}

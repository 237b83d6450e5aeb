/// <reference lib="dom" />
import { el, formatDuration } from "./dom.js";

/** The stream's state as the page shows it. */
export type StreamState = "connecting" | "live" | "reconnecting" | "stale";

const clockTime = (at: number) => new Date(at).toLocaleTimeString("en-GB", { hour12: false });

/**
 * The header's word on the live stream: `live` (with the manager's last pass), `reconnecting
 * since T`, or `stale since T` once nothing (not even a tick) has arrived for 2 tick intervals:
 * a paused or hung manager keeps the connection open and says nothing, and a page that kept
 * saying "live" then would mislead. `body[data-live]` carries the state for styles and tests.
 * Checked every second on the page's own clock.
 */
export function liveness(): {
  element: HTMLElement;
  /** The stream connected (true) or dropped (false). */
  connected(on: boolean): void;
  /** Something arrived on the stream. */
  heard(type: string, data: string): void;
} {
  const word = el("span", { id: "stream-state" });
  const step = el("span", { id: "manager-step", class: "muted" });
  const element = el("div", { class: "liveness", role: "status" }, word, " ", step);
  let state: StreamState = "connecting";
  let since = Date.now();
  let lastHeardAt = Date.now();
  let tickMs = 10_000;
  // Messages heard so far (data-heard: how a test knows ticks arrived without timing them).
  let heardCount = 0;
  // The manager's last pass, on the page's clock (the server's time is only used as a difference).
  let lastPassAgoAt: { passAgoMs: number; heardAt: number } | undefined;
  let monitorEveryMs: number | undefined;

  const set = (next: StreamState) => {
    if (next !== state) since = Date.now();
    state = next;
    render();
  };
  const render = () => {
    const now = Date.now();
    document.body.setAttribute("data-live", state === "live" ? "yes" : state === "stale" ? "stale" : "no");
    word.className = `stream-${state}`;
    word.textContent =
      state === "live"
        ? "live"
        : state === "connecting"
          ? "connecting…"
          : state === "reconnecting"
            ? `reconnecting since ${clockTime(since)}`
            : `stale since ${clockTime(since)}: nothing from the manager for ${formatDuration(now - lastHeardAt)}`;
    if (lastPassAgoAt === undefined) {
      step.textContent = monitorEveryMs === undefined ? "" : "manager: no pass yet";
      return;
    }
    const ago = lastPassAgoAt.passAgoMs + (now - lastPassAgoAt.heardAt);
    step.textContent = `manager's last pass ${formatDuration(ago)} ago`;
    // Loops that stopped passing while the server still ticks: a hung step.
    step.className = monitorEveryMs !== undefined && ago > 3 * monitorEveryMs ? "warn" : "muted";
  };
  setInterval(() => {
    if (state === "live" && Date.now() - lastHeardAt > 2 * tickMs) set("stale");
    else render();
  }, 1000);
  render();
  return {
    element,
    connected(on) {
      lastHeardAt = Date.now();
      set(on ? "live" : "reconnecting");
    },
    heard(type, data) {
      lastHeardAt = Date.now();
      heardCount += 1;
      word.dataset.heard = String(heardCount);
      try {
        const body = JSON.parse(data) as Record<string, unknown>;
        if (type === "hello" && typeof body.tickMs === "number" && body.tickMs > 0) tickMs = body.tickMs;
        if (type === "tick") {
          monitorEveryMs = typeof body.monitorEveryMs === "number" ? body.monitorEveryMs : undefined;
          lastPassAgoAt =
            typeof body.lastPassAt === "number" && typeof body.now === "number"
              ? { passAgoMs: body.now - body.lastPassAt, heardAt: Date.now() }
              : undefined;
        }
      } catch {
        // a change event's list, or an older server's plain tick: only its arrival counts
      }
      if (state !== "live") set("live");
      else render();
    },
  };
}

/**
 * An age that keeps counting between refreshes (a heartbeat 30 s ago is 40 s ago ten seconds
 * later, whether or not the stream says anything): `at` and `serverNow` are the server's clock,
 * the counting is the page's.
 */
export function liveAge(at: number, serverNow: number): HTMLElement {
  const span = el("span", { class: "age" });
  const agoAtRender = serverNow - at;
  const renderedAt = Date.now();
  span.dataset.agoMs = String(agoAtRender);
  span.dataset.renderedAt = String(renderedAt);
  span.textContent = `${formatDuration(agoAtRender)} ago`;
  return span;
}

/** Updates every liveAge on the page once a second. */
export function startAgeTicker(): void {
  setInterval(() => {
    const now = Date.now();
    document.querySelectorAll<HTMLElement>("span.age").forEach((span) => {
      const ago = Number(span.dataset.agoMs) + (now - Number(span.dataset.renderedAt));
      span.textContent = `${formatDuration(ago)} ago`;
    });
  }, 1000);
}

import { type Clock, realSleep, type Sleep, toCuzkitError } from "@cuzkit/core";

// The benchmark's own freeze and death detector, independent of the client: it probes the
// daemon's GetStatus every probeIntervalMs while a phase expects the daemon up; any answer or
// finished proof is a sign of life. With no sign of life for unresponsiveAfterMs it reports
// the daemon "froze" (probes time out: connected, silent) or "died" (probes refused).

/** Timing of the watchdog. */
export interface WatchdogOptions {
  /** Probe the daemon this often, in ms. Default 10000. */
  probeIntervalMs?: number | undefined;
  /** Deadline of one probe, in ms. Default 10000 (GetStatus forks nvidia-smi upstream). */
  probeTimeoutMs?: number | undefined;
  /** Report the daemon after this long without a sign of life, in ms. Default 30000. */
  unresponsiveAfterMs?: number | undefined;
}

/** What the watchdog reports. */
export interface Unresponsive {
  kind: "died" | "froze";
  /** How long the daemon gave no sign of life, in ms. */
  silentMs: number;
  /** The last probe's error code, e.g. "DEADLINE_EXCEEDED" or "DAEMON_UNAVAILABLE". */
  lastCode: string;
}

/** A running watchdog. */
export interface Watchdog {
  /** A sign of life from elsewhere (a proof finished). */
  noteLife(): void;
  /** Stops judging (the daemon is being restarted). */
  pause(): void;
  /** Judges again, counting from now. */
  resume(): void;
  /** Ends the probing loop. */
  stop(): void;
}

/** Starts the watchdog; `onUnresponsive` is called at most once per resume. */
export function startWatchdog(
  probe: (timeoutMs: number, signal: AbortSignal) => Promise<unknown>,
  onUnresponsive: (event: Unresponsive) => void,
  options: WatchdogOptions & { clock: Clock; sleep?: Sleep | undefined },
): Watchdog {
  const intervalMs = options.probeIntervalMs ?? 10_000;
  const probeTimeoutMs = options.probeTimeoutMs ?? 10_000;
  const afterMs = options.unresponsiveAfterMs ?? 30_000;
  const sleep = options.sleep ?? realSleep;
  const { clock } = options;
  const loop = new AbortController();
  let lastLife = clock.now();
  let paused = true;
  let fired = false;
  let lastCode = "";

  void (async () => {
    while (!loop.signal.aborted) {
      try {
        await sleep(intervalMs, loop.signal);
      } catch {
        return;
      }
      if (paused) continue;
      try {
        await probe(probeTimeoutMs, loop.signal);
        lastLife = clock.now();
        lastCode = "";
      } catch (error) {
        if (loop.signal.aborted) return;
        lastCode = toCuzkitError(error).code;
      }
      const silentMs = clock.now() - lastLife;
      if (!paused && !fired && silentMs >= afterMs) {
        fired = true;
        const refused = lastCode === "DAEMON_UNAVAILABLE" || lastCode === "CONNECTION_LOST";
        onUnresponsive({ kind: refused ? "died" : "froze", silentMs, lastCode });
      }
    }
  })();

  return {
    noteLife() {
      lastLife = clock.now();
    },
    pause() {
      paused = true;
    },
    resume() {
      paused = false;
      fired = false;
      lastLife = clock.now();
    },
    stop() {
      loop.abort();
    },
  };
}

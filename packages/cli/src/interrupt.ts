/** Signals that end a benchmark with a report: docker stop (SIGTERM), a closed terminal (SIGHUP), Ctrl-C (SIGINT). */
export const interruptSignals: readonly NodeJS.Signals[] = ["SIGTERM", "SIGHUP", "SIGINT"];

/**
 * An AbortSignal that aborts (with an Error naming the signal) on the first of `signals` this
 * process receives, and a disposer that removes the handlers. While installed, the signals no
 * longer end the process: the command finishes what it must (the report, stopping its daemon).
 */
export function interruptOnSignals(signals: readonly NodeJS.Signals[] = interruptSignals): {
  signal: AbortSignal;
  dispose(): void;
} {
  const controller = new AbortController();
  const handlers = signals.map((name) => {
    const handler = () => controller.abort(new Error(`interrupted by ${name}`));
    process.on(name, handler);
    return [name, handler] as const;
  });
  return {
    signal: controller.signal,
    dispose() {
      for (const [name, handler] of handlers) process.off(name, handler);
    },
  };
}

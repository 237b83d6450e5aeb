// What `cuzkit status` does once its flags are checked: one snapshot (table or JSON) of the
// daemon's gRPC status and metrics and its HTTP /status, or a --watch until a signal.
import { createCuzkClient, fetchStatusJson } from "@cuzkit/client";
import { colourEnabled } from "../colour.js";
import { resolveAddress } from "../common.js";
import { interruptOnSignals } from "../interrupt.js";
import type { CliIO } from "../io.js";
import type { StatusCommandDeps, StatusFlags } from "./status.js";
import { formatStatus } from "./status-format.js";
import { watchStatus } from "./status-watch.js";

/** `cuzkit status`'s action: a snapshot, or a watch with --watch. */
export async function runStatus(io: CliIO, deps: StatusCommandDeps, flags: StatusFlags): Promise<void> {
  const client = createCuzkClient({ address: resolveAddress(flags.addr, io) });
  if (flags.watch) {
    const shutdown = deps.stopSignal
      ? { signal: deps.stopSignal, dispose() {} }
      : interruptOnSignals(["SIGINT", "SIGTERM"]);
    try {
      await watchStatus({
        client,
        statusUrl: flags.statusUrl,
        io,
        intervalMs: flags.interval,
        colour: colourEnabled(io.stdout, io.env),
        signal: shutdown.signal,
        onFrame: deps.onFrame,
      });
    } finally {
      shutdown.dispose();
      await client.close();
    }
    return;
  }
  try {
    const [status, metrics, json] = await Promise.all([
      client.getStatus(),
      client.getMetrics(),
      flags.statusUrl === undefined ? Promise.resolve(undefined) : fetchStatusJson(flags.statusUrl),
    ]);
    if (flags.json) {
      const { raw: _rawStatus, ...statusView } = status;
      const { families: _families, text: _text, ...metricsView } = metrics;
      io.stdout.write(
        `${JSON.stringify({ address: client.address, status: statusView, metrics: metricsView, statusJson: json ? { ...json, raw: undefined } : undefined }, null, 2)}\n`,
      );
    } else {
      io.stdout.write(formatStatus(client.address, status, metrics, json, colourEnabled(io.stdout, io.env)));
    }
  } finally {
    await client.close();
  }
}

import type { FleetStore } from "./fleet-store.js";
import type { FleetEvent } from "./records.js";

/**
 * Reads every event after `afterSeq` in pages of `pageSize` (default 1000), in order, handing each
 * to `onEvent`; answers the last sequence number read (`afterSeq` when there was none). The
 * incremental readers of the log (metrics, alerts) share it.
 */
export async function readEventsAfter(
  store: Pick<FleetStore, "events">,
  afterSeq: number,
  onEvent: (event: FleetEvent) => void,
  pageSize = 1000,
): Promise<number> {
  let cursor = afterSeq;
  for (;;) {
    const page = await store.events({ afterSeq: cursor, limit: pageSize });
    for (const event of page) {
      cursor = event.seq;
      onEvent(event);
    }
    if (page.length < pageSize) return cursor;
  }
}

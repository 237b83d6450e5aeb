import type { ServerResponse } from "node:http";
import { z } from "zod";
import { lastEventSeq } from "../store/dashboard-reads.js";
import type { DashboardContext } from "./dashboard-context.js";
import { eventView } from "./dashboard-views.js";
import { type EventStream, openEventStream } from "./event-stream.js";
import { errorAnswers, textAnswer } from "./openapi.js";
import { defaultMaxEventStreams } from "./server-limits.js";

/**
 * `/api/stream`, the live stream (server-sent events): `hello` once, `change` with each batch of
 * new events, `tick` so the page sees the server and the manager's loops alive. At most
 * `maxEventStreams` open at once (`streams` holds them), beyond 503 EVENT_STREAMS_FULL.
 */
export function registerStreamRoute(context: DashboardContext, streams: Set<ServerResponse>): void {
  const { typed, store, options, read, readSchema, readRefusals } = context;
  const maxEventStreams = options.maxEventStreams ?? defaultMaxEventStreams;
  typed.get(
    "/api/stream",
    {
      ...read,
      schema: {
        ...readSchema(
          "openEventStream",
          "Server-sent events: `hello` ({ seq, tickMs }), `change` (new events, a JSON array) and `tick` ({ now, lastPassAt, lastPass, monitorEveryMs })",
        ),
        response: {
          200: textAnswer("text/event-stream", z.string(), "The event stream"),
          ...errorAnswers({
            ...readRefusals,
            503: "As many live streams are open as this manager serves (EVENT_STREAMS_FULL): close a tab or retry after Retry-After",
          }),
        },
      },
    },
    async (request, reply) => {
      // Read before the reply is taken over: a store that cannot answer gives a plain error.
      const initialSeq = await lastEventSeq(store);
      // Checked after the last await, so the check and the stream's registration are one step.
      if (streams.size >= maxEventStreams) {
        return reply
          .code(503)
          .header("retry-after", "30")
          .send({
            ok: false,
            error: "EVENT_STREAMS_FULL",
            message: `${maxEventStreams} live streams are open, the most this manager serves; close a dashboard tab or retry later`,
          });
      }
      openEventStream(request, reply, streams, (stream) => feedStream(context, stream, initialSeq));
      return reply;
    },
  );
}

/** Sends `hello`, then polls for new events and ticks; returns what stops both. */
function feedStream(context: DashboardContext, stream: EventStream, initialSeq: number): () => void {
  const { store, options } = context;
  let cursor = initialSeq;
  const tickMs = options.streamTickMs ?? 10_000;
  // The page marks itself stale when nothing arrives for 2 ticks: it must know the tick.
  stream.send("hello", { seq: cursor, tickMs });
  let polling = false;
  const poll = setInterval(() => {
    if (polling) return; // a slow read delays the next poll rather than overlapping it
    polling = true;
    store
      .events({ afterSeq: cursor, limit: 200 })
      .then((events) => {
        const last = events.at(-1);
        if (last === undefined) return;
        cursor = last.seq;
        stream.send("change", events.map(eventView));
      })
      .catch(() => {}) // the store is unreachable for now; the next poll tries again
      .finally(() => {
        polling = false;
      });
  }, options.streamPollMs ?? 1000);
  const tick = setInterval(() => sendTick(context, stream), tickMs);
  return () => {
    clearInterval(poll);
    clearInterval(tick);
  };
}

/**
 * Each tick says the server is alive and when the manager's loops last finished a pass: a live
 * server whose loops hang is news too.
 */
function sendTick({ manager, clock }: DashboardContext, stream: EventStream): void {
  const loops = manager.loopState();
  stream.send("tick", {
    now: clock.now(),
    lastPassAt: loops.lastPassAt ?? null,
    lastPass: loops.lastPass ?? null,
    monitorEveryMs: loops.monitorEveryMs ?? null,
  });
}

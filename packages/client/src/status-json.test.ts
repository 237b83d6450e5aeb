import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import {
  AbortedError,
  DaemonInternalError,
  DaemonUnavailableError,
  DeadlineExceededError,
} from "./errors.js";
import { fetchStatusJson, parseStatusJson, statusJsonUrl } from "./status-json.js";

// A snapshot shaped like the daemon's status.rs StatusSnapshot.
const snapshot = {
  uptime_secs: 812.5,
  memory: { total_bytes: 251 * 2 ** 30, used_bytes: 120 * 2 ** 30, available_bytes: 131 * 2 ** 30 },
  synthesis: { max_concurrent: 27, active: 4 },
  pipelines: [
    {
      job_id: "porep-1000-7-a1-x",
      proof_kind: "porep-c2",
      started_secs_ago: 33.2,
      total_partitions: 10,
      partitions_done: 1,
      partitions: [
        { index: 0, state: "done", synth_ms: 29000, gpu_ms: 1900 },
        { index: 1, state: "synthesizing", synth_ms: null, gpu_ms: null },
      ],
    },
  ],
  gpu_workers: [
    {
      worker_id: 0,
      gpu_ordinal: 0,
      state: "proving",
      current_job: "porep-1000-7-a1-x",
      current_partition: 0,
      busy_secs: 1.2,
    },
    {
      worker_id: 1,
      gpu_ordinal: 0,
      state: "idle",
      current_job: null,
      current_partition: null,
      busy_secs: null,
    },
  ],
  allocations: {
    srs: [{ circuit_id: "porep-32g", bytes: 44 * 2 ** 30, last_used_secs_ago: 1, evictable: false }],
    pce: [],
  },
  counters: {
    total_completed: 3,
    total_failed: 0,
    completed_by_kind: { "porep-c2": 3 },
    failed_by_kind: {},
    queue_depth: 0,
  },
  buffers: {
    synth_in_flight: 1,
    provers_in_flight: 1,
    aux_in_flight: 0,
    shells_in_flight: 0,
    pending_handles: 2,
  },
};

let server: Server | undefined;

async function serve(handler: Parameters<typeof createServer>[1]): Promise<string> {
  server = createServer(handler);
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return `127.0.0.1:${(server.address() as AddressInfo).port}`;
}

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

describe("parseStatusJson", () => {
  it("types every section", () => {
    const s = parseStatusJson(snapshot);
    expect(s.uptimeSecs).toBe(812.5);
    expect(s.memory?.availableBytes).toBe(131 * 2 ** 30);
    expect(s.synthesis).toEqual({ maxConcurrent: 27, active: 4 });
    expect(s.pipelines?.[0]?.partitions[1]).toEqual({
      index: 1,
      state: "synthesizing",
      synthMs: undefined,
      gpuMs: undefined,
    });
    expect(s.gpuWorkers?.[1]).toMatchObject({ state: "idle", currentJob: undefined, busySecs: undefined });
    expect(s.allocations?.srs[0]).toMatchObject({ circuitId: "porep-32g", evictable: false });
    expect(s.counters?.completedByKind).toEqual({ "porep-c2": 3 });
    expect(s.buffers).toEqual({
      synthInFlight: 1,
      proversInFlight: 1,
      auxInFlight: 0,
      shellsInFlight: 0,
      pendingHandles: 2,
    });
  });

  it("keeps fields it does not know, camelCased and typed unknown, instead of failing the snapshot", () => {
    const newer = {
      ...snapshot,
      build_info: { git_sha: "abc", rust_version: "1.80" },
      buffers: { ...snapshot.buffers, pinned_pool: { free_slots: 3 }, mode_name: "fast" },
      pipelines: [{ ...snapshot.pipelines[0], batch_id: 4 }],
      memory: { ...snapshot.memory, reserved_for_srs_bytes: 7 },
    };
    const s = parseStatusJson(newer);
    expect(s.buildInfo).toEqual({ gitSha: "abc", rustVersion: "1.80" });
    expect(s.buffers?.pinnedPool).toEqual({ freeSlots: 3 });
    expect(s.buffers?.modeName).toBe("fast");
    expect(s.buffers?.pendingHandles).toBe(2);
    expect(s.pipelines?.[0]?.batchId).toBe(4);
    expect(s.memory?.reservedForSrsBytes).toBe(7);
    expect(Object.keys(s).every((key) => !key.includes("_"))).toBe(true);
    expect(Object.keys(s.buffers ?? {}).every((key) => !key.includes("_"))).toBe(true);
  });

  it("treats missing sections as unknown", () => {
    expect(parseStatusJson({ uptime_secs: 1 })).toMatchObject({
      memory: undefined,
      pipelines: undefined,
      counters: undefined,
    });
  });

  it.each([
    [{}, /uptime_secs: expected a number/],
    [{ uptime_secs: "1" }, /uptime_secs/],
    [
      { uptime_secs: 1, memory: { total_bytes: 1, used_bytes: "x", available_bytes: 1 } },
      /memory.used_bytes/,
    ],
    [{ uptime_secs: 1, pipelines: {} }, /pipelines: expected an array/],
    [{ uptime_secs: 1, gpu_workers: [{ worker_id: 0, gpu_ordinal: 0, state: 3 }] }, /gpu_workers\[0\].state/],
    [[], /status: expected an object/],
  ])("names the first bad field of %j", (raw, why) => {
    expect(() => parseStatusJson(raw)).toThrow(why);
  });
});

describe("statusJsonUrl", () => {
  it("accepts host:port, URLs and full paths", () => {
    expect(statusJsonUrl("127.0.0.1:9821").href).toBe("http://127.0.0.1:9821/status");
    expect(statusJsonUrl("http://[::1]:9821/").href).toBe("http://[::1]:9821/status");
    expect(statusJsonUrl("http://h:1/status").href).toBe("http://h:1/status");
  });
});

describe("fetchStatusJson", () => {
  it("fetches and validates the daemon's /status", async () => {
    let path = "";
    const address = await serve((req, res) => {
      path = req.url ?? "";
      res.writeHead(200, { "content-type": "application/json", connection: "close" });
      res.end(JSON.stringify(snapshot));
    });
    const status = await fetchStatusJson(address);
    expect(path).toBe("/status");
    expect(status.counters?.totalCompleted).toBe(3);
  });

  it("reports a non-200 answer and a non-JSON body as DaemonInternalError", async () => {
    let body = "not found";
    let code = 404;
    const address = await serve((_req, res) => {
      res.writeHead(code);
      res.end(body);
    });
    await expect(fetchStatusJson(address)).rejects.toThrow(/HTTP 404/);
    code = 200;
    body = "{oops";
    await expect(fetchStatusJson(address)).rejects.toBeInstanceOf(DaemonInternalError);
    body = JSON.stringify({ uptime_secs: "soon" });
    await expect(fetchStatusJson(address)).rejects.toThrow(/unexpected shape: uptime_secs/);
  });

  it("reports a closed port as DaemonUnavailableError", async () => {
    const address = await serve(() => {});
    await new Promise<void>((resolve) => server!.close(() => resolve()));
    server = undefined;
    await expect(fetchStatusJson(address)).rejects.toBeInstanceOf(DaemonUnavailableError);
  });

  it("reports a silent endpoint as DeadlineExceededError, and a caller abort as AbortedError", async () => {
    const address = await serve(() => {
      // never answers
    });
    await expect(fetchStatusJson(address, { timeoutMs: 50 })).rejects.toBeInstanceOf(DeadlineExceededError);
    const controller = new AbortController();
    const pending = fetchStatusJson(address, { signal: controller.signal, timeoutMs: 10_000 });
    controller.abort();
    await expect(pending).rejects.toBeInstanceOf(AbortedError);
  });
});

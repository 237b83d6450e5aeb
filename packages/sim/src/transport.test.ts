import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { daemonMaxMessageBytes } from "@cuzkit/core";
import { AwaitProofResponse_Status, ProofKind } from "@cuzkit/proto";
import { status } from "@grpc/grpc-js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSyntheticC1 } from "./c1-wrapper.js";
import { PlainGrpcCallError } from "./testing/grpc-test-client.js";
import { createTracker } from "./testing/track.js";

const track = createTracker();
let dir = "";
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "cuzkit-sim-"));
});
afterEach(async () => {
  await track.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

const porep = (requestId: string) => ({
  requestId,
  proofKind: ProofKind.POREP_SEAL_COMMIT,
  vanillaProof: createSyntheticC1(),
});

describe("listen addresses", () => {
  it("serves on a unix socket, replacing a stale socket file and removing it on stop", async () => {
    const path = join(dir, "run", "cuzk.sock");
    // A socket file left behind by a killed process.
    const killed = spawnSync(process.execPath, [
      "-e",
      `require("node:fs").mkdirSync(${JSON.stringify(join(dir, "run"))});require("node:net").createServer().listen(${JSON.stringify(path)}, () => process.kill(process.pid, "SIGKILL"))`,
    ]);
    expect(killed.signal).toBe("SIGKILL");
    expect(existsSync(path)).toBe(true);
    const daemon = await track.daemon({ listen: `unix://${path}`, proofTimeMs: 0 });
    expect(daemon.address).toBe(`unix://${path}`);
    const { result } = await track.client(daemon.address).prove({ submit: porep("uds") });
    expect(result?.status).toBe(AwaitProofResponse_Status.COMPLETED);
    await daemon.stop();
    expect(existsSync(path)).toBe(false);
  }, 15_000);

  it("refuses to delete a regular file in the socket's place", async () => {
    const path = join(dir, "not-a-socket");
    writeFileSync(path, "keep me");
    await expect(track.daemon({ listen: `unix://${path}` })).rejects.toThrow(/not a socket/);
    expect(existsSync(path)).toBe(true);
  });

  it("serves on IPv6 loopback", async () => {
    const daemon = await track.daemon({ listen: "[::1]:0", proofTimeMs: 0 });
    expect(daemon.address).toMatch(/^\[::1\]:\d+$/);
    expect((await track.client(daemon.address).getStatus()).gpus).toHaveLength(2);
  });

  it("reports a taken port as SimListenError", async () => {
    const first = await track.daemon();
    await expect(track.daemon({ listen: first.address })).rejects.toMatchObject({
      code: "SIM_LISTEN_FAILED",
    });
  });
});

describe("message cap", () => {
  it("answers OUT_OF_RANGE, as tonic does, for a request just over 128 MiB", async () => {
    const daemon = await track.daemon({ proofTimeMs: 0 });
    const client = track.client(daemon.address);
    const tooBig = new Uint8Array(daemonMaxMessageBytes); // plus the field tag and length: just over the cap
    let error: unknown;
    try {
      await client.submitProof({
        requestId: "big",
        proofKind: ProofKind.POREP_SEAL_COMMIT,
        vanillaProof: tooBig,
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(PlainGrpcCallError);
    const { grpcCode, details } = error as PlainGrpcCallError;
    expect(grpcCode).toBe(status.OUT_OF_RANGE);
    expect(details).toMatch(
      /^Error, decoded message length too large: found 13421774\d bytes, the limit is: 134217728 bytes$/,
    );
    expect(daemon.stats().submissionsByRequestId).toEqual({});
    // The suite's 30 s: encoding and sending 128 MiB took over 20 s on a loaded 2-core machine.
  });
});

describe("HTTP /status", () => {
  it("serves the daemon's JSON with its field names, and 404 elsewhere", async () => {
    const daemon = await track.daemon({ statusListen: "127.0.0.1:0" });
    expect(daemon.statusUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/status$/);
    await track.client(daemon.address).prove({ submit: porep("s1") });
    const response = await fetch(daemon.statusUrl!);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    const body = (await response.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(
      [
        "allocations",
        "buffers",
        "counters",
        "gpu_workers",
        "memory",
        "pipelines",
        "synthesis",
        "uptime_secs",
      ].sort(),
    );
    expect(body).toMatchObject({
      memory: {
        total_bytes: expect.any(Number),
        used_bytes: expect.any(Number),
        available_bytes: expect.any(Number),
      },
      synthesis: { max_concurrent: expect.any(Number), active: 0 },
      counters: { total_completed: 1, total_failed: 0, completed_by_kind: { "porep-c2": 1 }, queue_depth: 0 },
      buffers: {
        synth_in_flight: 0,
        provers_in_flight: 0,
        aux_in_flight: 0,
        shells_in_flight: 0,
        pending_handles: 0,
      },
    });
    const pipelines = body.pipelines as { job_id: string; partitions: unknown[]; partitions_done: number }[];
    expect(pipelines.map((p) => [p.job_id, p.partitions.length, p.partitions_done])).toEqual([
      ["s1", 10, 10],
    ]);
    expect((body.gpu_workers as unknown[]).length).toBe(2);
    expect((body.allocations as { srs: { circuit_id: string }[] }).srs.map((a) => a.circuit_id)).toEqual([
      "porep-32g",
    ]);
    const other = await fetch(daemon.statusUrl!.replace("/status", "/metrics"));
    expect(other.status).toBe(404);
    expect(other.headers.get("content-type")).toBe("text/plain");
  });

  it("keeps its port across a restart and counts from zero again", async () => {
    const daemon = await track.daemon({ statusListen: "127.0.0.1:0", proofTimeMs: 0 });
    const url = daemon.statusUrl!;
    await track.client(daemon.address).prove({ submit: porep("x") });
    await daemon.restart();
    expect(daemon.statusUrl).toBe(url);
    const body = (await (await fetch(url)).json()) as { counters: { total_completed: number } };
    expect(body.counters.total_completed).toBe(0);
  });

  it("counts PoSt in gRPC but not in the /status counters, as the daemon does", async () => {
    const daemon = await track.daemon({ statusListen: "127.0.0.1:0", proofTimeMs: 0 });
    const client = track.client(daemon.address);
    await client.prove({
      submit: {
        requestId: "w",
        proofKind: ProofKind.WINNING_POST,
        vanillaProofs: [new Uint8Array(1)],
        randomness: new Uint8Array(32),
      },
    });
    expect((await client.getStatus()).totalProofsCompleted).toBe(1n);
    const body = (await (await fetch(daemon.statusUrl!)).json()) as { counters: { total_completed: number } };
    expect(body.counters.total_completed).toBe(0);
  });
});

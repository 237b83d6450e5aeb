import { hardwareFrom, type Logger } from "@cuzkit/core";
import { AwaitProofResponse_Status, ProofKind } from "@cuzkit/proto";
import { status } from "@grpc/grpc-js";
import { afterEach, describe, expect, it } from "vitest";
import { createSyntheticC1 } from "./c1-wrapper.js";
import { defaultSimConfig } from "./options.js";
import { createManualScheduler } from "./scheduler.js";
import type { SimCrashDetail, SimCrashReason, SimDaemon } from "./sim-daemon.js";
import { grpcError } from "./testing/grpc-test-client.js";
import { createTracker } from "./testing/track.js";

const track = createTracker();
afterEach(() => track.cleanup());

const porep = (requestId: string) => ({
  requestId,
  proofKind: ProofKind.POREP_SEAL_COMMIT,
  vanillaProof: createSyntheticC1(),
});

function nextCrash(daemon: SimDaemon): Promise<[SimCrashReason, SimCrashDetail]> {
  return new Promise((resolve) => {
    const off = daemon.onCrash((reason, detail) => {
      off();
      resolve([reason, detail]);
    });
  });
}

// What a client sees when the daemon dies under a call: the connection is gone.
const transportCodes = [status.UNAVAILABLE, status.CANCELLED, status.INTERNAL, status.UNKNOWN];

describe("OOM kill", () => {
  it("cuts an in-flight Prove when the modelled memory exceeds usable RAM", async () => {
    const daemon = await track.daemon({
      hardware: hardwareFrom({ ram: "128GiB", cores: 32, gpus: "2xRTX3090" }),
      config: { ...defaultSimConfig(), partitionWorkers: 10 },
    });
    const crashed = nextCrash(daemon);
    const client = track.client(daemon.address);
    const error = await grpcError(client.prove({ submit: porep("doomed") }));
    expect(transportCodes).toContain(error.grpcCode);
    const [reason, detail] = await crashed;
    expect(reason).toBe("oom");
    expect(detail.message).toMatch(/^oom-kill: modelled memory \d+\.\d GiB exceeds 128\.0 GiB$/);
    expect(daemon.state).toBe("crashed");
    expect(daemon.stats()).toMatchObject({ oomKills: 1, crashes: 1 });
    expect(daemon.stats().peakMemoryBytes).toBeGreaterThan(128 * 1024 ** 3);
    // Nothing listens any more.
    const refused = await grpcError(client.getStatus({ timeoutMs: 2000 }));
    expect(refused.grpcCode).toBe(status.UNAVAILABLE);
  });
});

describe("crash and restart", () => {
  it("forgets every job on restart: AwaitProof turns into NOT_FOUND, uptime starts again, same address", async () => {
    const daemon = await track.daemon({ proofTimeMs: 0 });
    const address = daemon.address;
    const client = track.client(address);
    await client.prove({ submit: porep("before-restart") });
    expect((await client.awaitProof({ jobId: "before-restart" })).status).toBe(
      AwaitProofResponse_Status.COMPLETED,
    );
    await daemon.restart();
    expect(daemon.address).toBe(address);
    expect(daemon.state).toBe("running");
    // The old connection died with the old process; a client reconnects.
    const reconnected = track.client(address);
    const error = await grpcError(reconnected.awaitProof({ jobId: "before-restart" }));
    expect([error.grpcCode, error.details]).toEqual([status.NOT_FOUND, "job not found: before-restart"]);
    expect((await reconnected.getStatus()).totalProofsCompleted).toBe(0n);
    expect(daemon.stats()).toMatchObject({ restarts: 1, proofsCompleted: 1 });
  });

  it("crash() drops an in-flight call; restart() brings the daemon back", async () => {
    const daemon = await track.daemon({ proofTimeMs: 60_000 });
    const client = track.client(daemon.address);
    const crashed = nextCrash(daemon);
    const call = grpcError(client.prove({ submit: porep("long") }));
    await daemon.whenReceived("Prove", { jobId: "long" });
    daemon.crash();
    expect(transportCodes).toContain((await call).grpcCode);
    expect((await crashed)[0]).toBe("killed");
    await daemon.restart({ faults: {} });
    expect(daemon.state).toBe("running");
    expect((await track.client(daemon.address).getStatus()).totalProofsCompleted).toBe(0n);
  });

  it("crashes after N proofs, answering the Nth first", async () => {
    const daemon = await track.daemon({ proofTimeMs: 0, faults: { crashAfterProofs: 2 } });
    const client = track.client(daemon.address);
    const crashed = nextCrash(daemon);
    expect((await client.prove({ submit: porep("1") })).result?.status).toBe(
      AwaitProofResponse_Status.COMPLETED,
    );
    expect((await client.prove({ submit: porep("2") })).result?.status).toBe(
      AwaitProofResponse_Status.COMPLETED,
    );
    expect((await crashed)[0]).toBe("scheduled");
    expect(daemon.state).toBe("crashed");
    expect(transportCodes).toContain((await grpcError(client.prove({ submit: porep("3") }))).grpcCode);
  });

  it("crashes at a given time after start", async () => {
    const daemon = await track.daemon({ faults: { crashAtMs: 30 } });
    const [reason] = await nextCrash(daemon);
    expect(reason).toBe("scheduled");
    expect(daemon.stats().crashes).toBe(1);
  });
});

describe("stall", () => {
  it("answers nothing until the deadline, then resumes on unstall", async () => {
    const daemon = await track.daemon({ proofTimeMs: 0 });
    const client = track.client(daemon.address);
    await client.getStatus(); // the connection is up before the stall
    daemon.stall();
    expect(daemon.state).toBe("stalled");
    const error = await grpcError(client.getStatus({ timeoutMs: 300 }));
    expect(error.grpcCode).toBe(status.DEADLINE_EXCEEDED);
    const waiting = client.prove({ submit: porep("held") });
    daemon.unstall();
    expect((await waiting).result?.status).toBe(AwaitProofResponse_Status.COMPLETED);
  });

  it("holds HTTP /status answers too", async () => {
    const daemon = await track.daemon({ statusListen: "127.0.0.1:0" });
    daemon.stall();
    await expect(fetch(daemon.statusUrl!, { signal: AbortSignal.timeout(300) })).rejects.toThrow();
    const held = fetch(daemon.statusUrl!);
    daemon.unstall();
    expect((await held).status).toBe(200);
  });

  it("does not even answer HTTP/2 PINGs, so client keepalive detects it", async () => {
    const daemon = await track.daemon({ proofTimeMs: 0 });
    const client = track.client(daemon.address, {
      channelOptions: { "grpc.keepalive_time_ms": 200, "grpc.keepalive_timeout_ms": 200 },
    });
    await client.getStatus();
    daemon.stall();
    const error = await grpcError(client.prove({ submit: porep("x") }, { timeoutMs: 10_000 }));
    expect(error.grpcCode).toBe(status.UNAVAILABLE);
  });

  it("stalls after N proofs, answering the Nth first", async () => {
    const log = logWatcher();
    const daemon = await track.daemon({
      proofTimeMs: 0,
      faults: { stallAfterProofs: 1 },
      logger: log.logger,
    });
    const client = track.client(daemon.address);
    expect((await client.prove({ submit: porep("1") })).result?.status).toBe(
      AwaitProofResponse_Status.COMPLETED,
    );
    await log.logged("stalled: answering nothing");
    expect(daemon.state).toBe("stalled");
    const error = await grpcError(client.prove({ submit: porep("2") }, { timeoutMs: 300 }));
    expect(error.grpcCode).toBe(status.DEADLINE_EXCEEDED);
  });
});

describe("hold", () => {
  it("holds every proof that ends after N, answering everything else, until a restart without the fault", async () => {
    const log = logWatcher();
    const daemon = await track.daemon({ proofTimeMs: 0, faults: { holdAfterProofs: 1 }, logger: log.logger });
    const client = track.client(daemon.address);
    expect((await client.prove({ submit: porep("1") })).result?.status).toBe(
      AwaitProofResponse_Status.COMPLETED,
    );
    await client.submitProof(porep("2"));
    await log.logged("proof held");
    const error = await grpcError(client.awaitProof({ jobId: "2" }, { timeoutMs: 300 }));
    expect(error.grpcCode).toBe(status.DEADLINE_EXCEEDED);
    expect((await client.getStatus()).totalProofsCompleted).toBe(1n);
    expect(daemon.stats()).toMatchObject({ proofsCompleted: 1, proofsFailed: 0 });
    await daemon.restart({ faults: {} });
    const after = track.client(daemon.address);
    expect((await after.prove({ submit: porep("3") })).result?.status).toBe(
      AwaitProofResponse_Status.COMPLETED,
    );
  });
});

describe("stick", () => {
  it("never ends a proof after N, keeps it on a GPU, stops the counters, and answers everything else", async () => {
    const log = logWatcher();
    const daemon = await track.daemon({
      proofTimeMs: 0,
      faults: { stickAfterProofs: 1 },
      logger: log.logger,
    });
    const client = track.client(daemon.address);
    expect((await client.prove({ submit: porep("1") })).result?.status).toBe(
      AwaitProofResponse_Status.COMPLETED,
    );
    await client.submitProof(porep("2"));
    await log.logged("proof stuck");
    const error = await grpcError(client.awaitProof({ jobId: "2" }, { timeoutMs: 300 }));
    expect(error.grpcCode).toBe(status.DEADLINE_EXCEEDED);
    // Alive and answering, unlike a stall: the stuck job is a GPU's current job, the counters stand still.
    const answer = await client.getStatus();
    expect(answer.totalProofsCompleted).toBe(1n);
    expect(answer.totalProofsFailed).toBe(0n);
    expect(answer.gpus.map((gpu) => gpu.currentJobId)).toContain("2");
    expect(daemon.state).toBe("running");
    expect(daemon.stats()).toMatchObject({ proofsCompleted: 1, proofsFailed: 0 });
  });
});

describe("dropConnections", () => {
  it("cuts calls in flight but keeps listening and keeps the jobs", async () => {
    // The proof ends only when the test moves the manual scheduler, so the call is still in
    // flight when the connections drop, however slow this machine is.
    const scheduler = createManualScheduler();
    const daemon = await track.daemon({ proofTimeMs: 200, scheduler });
    const client = track.client(daemon.address);
    const call = grpcError(client.prove({ submit: porep("survivor") }));
    await daemon.whenReceived("Prove", { jobId: "survivor" });
    daemon.dropConnections();
    expect(transportCodes).toContain((await call).grpcCode);
    expect(daemon.state).toBe("running");
    const awaited = client.awaitProof({ jobId: "survivor" });
    await daemon.whenReceived("AwaitProof", { jobId: "survivor" });
    scheduler.advance(200);
    const result = await awaited;
    expect(result.status).toBe(AwaitProofResponse_Status.COMPLETED);
    expect(daemon.stats().connections).toBe(2);
  });
});

describe("slow start", () => {
  it("refuses connections while loading parameters, then serves on the announced address", async () => {
    // The start delay runs on the manual scheduler: the daemon is still loading when the
    // client calls, however slow this machine is, and listens once the test moves time.
    const scheduler = createManualScheduler();
    const daemon = await track.daemon({ proofTimeMs: 0, faults: { startDelayMs: 300 }, scheduler });
    expect(daemon.state).toBe("starting");
    expect(daemon.address).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(daemon.address).not.toMatch(/:0$/);
    const client = track.client(daemon.address);
    const refused = await grpcError(client.getStatus({ timeoutMs: 2000 }));
    expect(refused.grpcCode).toBe(status.UNAVAILABLE);
    expect(daemon.state).toBe("starting");
    scheduler.advance(300);
    await daemon.ready();
    expect(daemon.state).toBe("running");
    const fresh = track.client(daemon.address);
    expect((await fresh.getStatus()).totalProofsCompleted).toBe(0n);
  });
});

describe("stop", () => {
  it("is idempotent, frees the port, and refuses a restart afterwards", async () => {
    const daemon = await track.daemon();
    await Promise.all([daemon.stop(), daemon.stop()]);
    expect(daemon.state).toBe("stopped");
    daemon.crash();
    expect(daemon.stats().crashes).toBe(0);
    await expect(daemon.restart()).rejects.toMatchObject({ code: "SIM_STOPPED" });
    const again = await track.daemon({ listen: daemon.address });
    expect(again.address).toBe(daemon.address);
  });

  it("rejects ready() when stopped during the start delay", async () => {
    const daemon = await track.daemon({ faults: { startDelayMs: 10_000 } });
    const ready = daemon.ready();
    await daemon.stop();
    await expect(ready).rejects.toMatchObject({ code: "SIM_START_ABORTED" });
  });
});

/** A logger for the daemon, and a wait for a line it logs (the stall after N proofs comes on its own turn). */
function logWatcher() {
  const messages: string[] = [];
  const waits = new Map<string, () => void>();
  const record = (message: string) => {
    messages.push(message);
    waits.get(message)?.();
  };
  const logger: Logger = { debug: record, info: record, warn: record, error: record };
  return {
    logger,
    logged: (message: string) =>
      messages.includes(message)
        ? Promise.resolve()
        : new Promise<void>((resolve) => waits.set(message, resolve)),
  };
}

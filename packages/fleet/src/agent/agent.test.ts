import { mkdtempSync, readFileSync, rmSync, watch } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { porepRequest, type SubmitProofInput } from "@cuzkit/client";
import { hardwareFrom, silentLogger } from "@cuzkit/core";
import { createSyntheticC1 } from "@cuzkit/sim";
import { afterEach, beforeAll, beforeEach, describe, expect, it, onTestFinished } from "vitest";
import { cuzkitShellCommand } from "../../../../test/support/cuzkit-process.js";
import { killProcesses, processesMentioning } from "../../../../test/support/processes.js";
import type { ReportAnswer } from "../protocol/answers.js";
import type { FailureBody, FinalReportBody, PhaseBody } from "../protocol/requests.js";
import { type AgentOptions, type AgentTimers, runAgent } from "./agent.js";
import type { AgentReporter } from "./reporter.js";

/** Timers whose interval callbacks run only when the test fires them. */
function manualTimers(): AgentTimers & { fire(): void; active: number } {
  const callbacks = new Map<number, () => void>();
  let next = 1;
  return {
    setInterval(callback) {
      callbacks.set(next, callback);
      return next++;
    },
    clearInterval(handle) {
      callbacks.delete(handle as number);
    },
    fire() {
      for (const callback of callbacks.values()) callback();
    },
    get active() {
      return callbacks.size;
    },
  };
}

/** A reporter that records what the agent sends and answers like a manager would. */
function recordingReporter(
  decide: (body: FinalReportBody) => ReportAnswer,
  heartbeatAnswer: () => "ok" | "stop" = () => "ok",
) {
  const sent: { type: string; body: unknown }[] = [];
  const reporter: AgentReporter = {
    kind: "manager",
    async register(body) {
      sent.push({ type: "register", body });
      return {
        instanceId: "i-0000abcd",
        minProofsPerHour: 10,
        benchmarkProofs: 3,
        heartbeatIntervalMs: 30_000,
        dialect: "budget",
      };
    },
    async phase(body: PhaseBody) {
      sent.push({ type: `phase:${body.phase}`, body });
    },
    async heartbeat(body) {
      sent.push({ type: "heartbeat", body });
      return heartbeatAnswer();
    },
    async failure(body: FailureBody) {
      sent.push({ type: "failure", body });
    },
    async report(body) {
      sent.push({ type: "report", body });
      return decide(body);
    },
  };
  return { reporter, sent, types: () => sent.map((s) => s.type).filter((t) => t !== "heartbeat") };
}

const machine = hardwareFrom({ ram: "251GiB", cores: 32, gpus: "2xRTX3090" });
const simCommand = (extra = "") =>
  `${cuzkitShellCommand()} sim --ram 251GiB --cores 32 --gpus 2xRTX3090 --time-scale 0.0003 --pce-cached ${extra}`;

let dir: string;
let request: SubmitProofInput;
beforeAll(async () => {
  request = await porepRequest({
    c1: createSyntheticC1({ sectorNumber: 1 }),
    minerId: 1000,
    sectorNumber: 1,
  });
});
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "cuzkit-agent-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function options(reporter: AgentReporter, extra: Partial<AgentOptions> = {}): AgentOptions {
  return {
    reporter,
    daemonCommand: simCommand(),
    daemonAddress: `unix://${join(dir, "cuzk.sock")}`,
    request,
    detectHardware: async () => machine,
    readyTimeoutMs: 20_000,
    ...extra,
  };
}

describe("runAgent", () => {
  it("forwards the daemon's /status in heartbeats, and heartbeats without it when the read fails", async () => {
    const cases: { read: () => Promise<Record<string, unknown>>; forwarded: unknown }[] = [
      {
        read: async () => ({ uptimeSecs: 5, memory: { usedBytes: 1, totalBytes: 2 }, raw: { big: true } }),
        forwarded: { uptimeSecs: 5, memory: { usedBytes: 1, totalBytes: 2 } },
      },
      {
        read: async () => {
          throw new Error("connection refused");
        },
        forwarded: undefined,
      },
    ];
    for (const { read, forwarded } of cases) {
      const timers = manualTimers();
      const { reporter, sent } = recordingReporter(() => ({
        state: "rejected",
        keep: false,
        reason: "test",
      }));
      await runAgent(
        options(reporter, {
          timers,
          readDaemonStatus: read,
          paramsCommand: "curio fetch-params 32GiB",
          runCommand: async () => {
            timers.fire();
            await new Promise((resolve) => setImmediate(resolve));
            return { exitCode: 0, signal: null, tail: [] };
          },
        }),
      );
      const beat = sent.find((s) => s.type === "heartbeat")?.body as Record<string, unknown> | undefined;
      expect(beat).toBeDefined();
      expect(beat?.daemonStatus).toEqual(forwarded);
    }
  });

  it("never holds a heartbeat for a daemon whose /status does not answer: it goes at the next tick, without it", async () => {
    const timers = manualTimers();
    const { reporter, sent } = recordingReporter(() => ({ state: "rejected", keep: false, reason: "test" }));
    let reads = 0;
    const beats = () =>
      sent.filter((s) => s.type === "heartbeat").map((s) => s.body as Record<string, unknown>);
    const flush = () => new Promise((resolve) => setImmediate(resolve));
    await runAgent(
      options(reporter, {
        timers,
        // A frozen daemon: the read never settles (the real reader gives up after 2 s, more than 3 of some intervals).
        readDaemonStatus: () => {
          reads++;
          return new Promise<never>(() => {});
        },
        paramsCommand: "curio fetch-params 32GiB",
        runCommand: async () => {
          timers.fire();
          await flush();
          expect(beats()).toHaveLength(0); // waiting on the read, for one interval at most
          // the next tick sends it without the status; the one after does not wait on the stuck read again
          timers.fire();
          await flush();
          timers.fire();
          await flush();
          return { exitCode: 0, signal: null, tail: [] };
        },
      }),
    );
    expect(beats()).toHaveLength(2);
    expect(beats().every((b) => b.daemonStatus === undefined)).toBe(true);
    expect(reads).toBe(1); // the stuck read is shared, not piled up
  });

  it("registers, fetches params, tunes, benchmarks with the daemon spawned, reports, heartbeats, and serves when kept", async () => {
    const timers = manualTimers();
    const stop = new AbortController();
    const { reporter, sent, types } = recordingReporter(() => {
      setImmediate(() => stop.abort()); // serve briefly, then the operator stops it
      return { state: "active", keep: true, reason: "kept" };
    });
    const ran: string[] = [];
    const outcome = await runAgent(
      options(reporter, {
        timers,
        signal: stop.signal,
        paramsCommand: "curio fetch-params 32GiB",
        runCommand: async (command) => {
          ran.push(command);
          timers.fire(); // heartbeats go out while the download runs
          return { exitCode: 0, signal: null, tail: [] };
        },
      }),
    );
    expect(outcome, JSON.stringify(outcome)).toMatchObject({ status: "served", verdict: "MET" });
    expect(outcome.proofsPerHour).toBeGreaterThan(0);
    expect(outcome.curioConfig).toContain("[Cuzk]");
    expect(ran).toEqual(["curio fetch-params 32GiB"]);
    expect(types()).toEqual(["register", "phase:params", "phase:warmup", "phase:benchmarking", "report"]);
    expect(sent.filter((s) => s.type === "heartbeat").length).toBeGreaterThanOrEqual(1);
    const warmup = sent.find((s) => s.type === "phase:warmup")?.body as PhaseBody;
    expect(warmup.tunedConfig).toContain("[synthesis]");
    const report = sent.find((s) => s.type === "report")?.body as FinalReportBody;
    expect(report.proofs.filter((p) => !p.warmup && p.ok)).toHaveLength(3);
    expect(report.proofs.some((p) => p.warmup)).toBe(true);
    expect(timers.active).toBe(0); // the heartbeat stopped with the agent
  });

  it("starts the serve command with CURIO_NODE_NAME set to the name the manager gave at register", async () => {
    const stop = new AbortController();
    const recorded = recordingReporter(() => ({ state: "active", keep: true, reason: "kept" }));
    const reporter: AgentReporter = {
      ...recorded.reporter,
      register: async (body) => ({
        ...(await recorded.reporter.register(body)),
        curioNodeName: "cuzkit-fleet-test-i-0000abcd",
      }),
    };
    const written = join(dir, "curio-node-name");
    // The serve command (Curio here) records the name it was started with, then serves until stopped.
    const named = new Promise<void>((resolve) => {
      const watcher = watch(dir, (_event, file) => {
        if (file === "curio-node-name") {
          watcher.close();
          resolve();
        }
      });
    });
    const outcome = runAgent(
      options(reporter, {
        signal: stop.signal,
        timers: manualTimers(),
        serveCommand: `printf %s "$CURIO_NODE_NAME" > ${written}.part && mv ${written}.part ${written} && exec sleep 60`,
      }),
    );
    await named;
    stop.abort();
    expect(await outcome).toMatchObject({ status: "served" });
    expect(readFileSync(written, "utf8")).toBe("cuzkit-fleet-test-i-0000abcd");
  });

  it("reports a failed params command with its class and stops there", async () => {
    const { reporter, sent, types } = recordingReporter(() => ({ state: "active", keep: true, reason: "" }));
    const outcome = await runAgent(
      options(reporter, {
        timers: manualTimers(),
        paramsCommand: "false",
        runCommand: async () => ({ exitCode: 3, signal: null, tail: ["no space left on device"] }),
      }),
    );
    expect(outcome).toMatchObject({ status: "failed", failedStep: "params" });
    expect(types()).toEqual(["register", "phase:params", "failure"]);
    expect(sent.at(-1)?.body).toMatchObject({
      phase: "params",
      errorClass: "ParamsCommandError",
      code: "PARAMS_COMMAND_FAILED",
      message: expect.stringContaining("no space left on device"),
    });
  });

  it("reports a machine the tuner finds too small as a tune failure", async () => {
    const { reporter, sent } = recordingReporter(() => ({ state: "active", keep: true, reason: "" }));
    const outcome = await runAgent(
      options(reporter, {
        timers: manualTimers(),
        detectHardware: async () => hardwareFrom({ ram: "16GiB", cores: 8, gpus: "1xRTX3090" }),
      }),
    );
    expect(outcome).toMatchObject({ status: "failed", failedStep: "tune" });
    expect(sent.at(-1)?.body).toMatchObject({ errorClass: "UnsafeConfigError", code: "NO_SAFE_CONFIG" });
  });

  it("reports a daemon that is OOM-killed during the benchmark, and does not serve", async () => {
    const { reporter, sent } = recordingReporter((body) => ({
      state: body.verdict === "MET" ? "active" : "failed",
      keep: body.verdict === "MET",
      reason: body.verdict,
    }));
    // The machine claims 251 GiB; its container really gets 60 GiB: the tuned daemon is killed.
    const outcome = await runAgent(
      options(reporter, { timers: manualTimers(), daemonCommand: simCommand("--memory-limit 60GiB") }),
    );
    expect(outcome.status).not.toBe("served");
    const last = sent.at(-1);
    if (last?.type === "report") {
      expect((last.body as FinalReportBody).verdict).toMatch(/FAILED|UNSTABLE/);
    } else {
      expect(last).toMatchObject({ type: "failure", body: { phase: "warmup" } });
    }
  });

  it("stops at once when told to while the kept machine's daemon still loads its parameters", async () => {
    const { reporter, types } = recordingReporter(() => ({ state: "active", keep: true, reason: "kept" }));
    // The serve start never becomes ready (it stands for minutes of parameter loading); it says
    // when it began by creating a file, and the test stops the agent then.
    const started = join(dir, "serve-started");
    const daemonCommand = `case {config} in *serve*) touch ${JSON.stringify(started)}; exec sleep 6017;; esac; exec ${simCommand()} --config {config} --listen {addr}`;
    const stop = new AbortController();
    const watcher = watch(dir, (_event, name) => {
      if (name === "serve-started") stop.abort();
    });
    onTestFinished(() => {
      watcher.close();
      // Should the stop not reach the start, the test times out: take the stand-in daemon down.
      killProcesses(processesMentioning("sleep 6017"));
    });
    // A ready timeout far beyond the test's: without the stop reaching the start, this would wait it out.
    const outcome = await runAgent(
      options(reporter, { daemonCommand, signal: stop.signal, readyTimeoutMs: 600_000 }),
    );
    expect(stop.signal.aborted).toBe(true);
    expect(outcome).toMatchObject({
      status: "served",
      reason: "stopped before the daemon was ready to serve",
    });
    // No failure is reported for a stop, and the daemon it was starting is gone.
    expect(types()).not.toContain("failure");
    expect(processesMentioning("sleep 6017")).toEqual([]);
  });

  it("stops serving when the manager answers a heartbeat with stop", async () => {
    const timers = manualTimers();
    let answer: "ok" | "stop" = "ok";
    const { reporter, sent } = recordingReporter(
      () => ({ state: "active", keep: true, reason: "kept" }),
      () => answer,
    );
    // Once it serves (its log line says so), the next heartbeat is answered stop.
    const logger = {
      ...silentLogger,
      info(message: string) {
        if (message !== "agent serving") return;
        answer = "stop";
        timers.fire();
      },
    };
    const outcome = await runAgent(options(reporter, { timers, logger }));
    expect(outcome.status).toBe("served");
    expect(sent.at(-1)?.type).toBe("heartbeat");
  });
});

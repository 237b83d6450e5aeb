import { spawn } from "node:child_process";
import {
  ConnectionLostError,
  type DaemonMetrics,
  type DaemonStatus,
  DaemonUnavailableError,
  DeadlineExceededError,
} from "@cuzkit/client";
import { startSimDaemon } from "@cuzkit/sim";
import { describe, expect, it, onTestFinished, vi } from "vitest";
import { cuzkitArgv } from "../../../../test/support/cuzkit-process.js";
import { runCli } from "../run-cli.js";
import { memoryIO, memorySink } from "../test-support/memory-io.js";
import {
  type DaemonCondition,
  daemonCondition,
  renderWatchFrame,
  type WatchSample,
  watchStatus,
} from "./status-watch.js";

const at = Date.UTC(2026, 11, 1, 12, 0, 0);

function status(uptimeSeconds: number, gpuName = "NVIDIA GeForce RTX 3090"): DaemonStatus {
  return {
    uptimeSeconds,
    totalProofsCompleted: 7,
    totalProofsFailed: 1,
    gpus: [
      {
        ordinal: 0,
        name: gpuName,
        vramTotalBytes: 24 * 2 ** 30,
        vramFreeBytes: undefined,
        workers: 2,
        currentJobs: [],
      },
    ],
    gpuWorkers: 2,
    loadedSrs: [],
    queues: [],
    pinnedMemoryBytes: undefined,
    pinnedMemoryLimitBytes: undefined,
    raw: {} as DaemonStatus["raw"],
  };
}
const metrics: DaemonMetrics = {
  proofsCompletedTotal: 7,
  proofsFailedTotal: 1,
  uptimeSeconds: 100,
  queueDepth: 0,
  runningJobs: 1,
  gpuWorkers: 2,
  byKind: {},
  families: [],
  text: "",
};
const answered = (uptime: number, when = at, name?: string): WatchSample => ({
  at: when,
  status: status(uptime, name),
  metrics,
});
const failed = (error: unknown, when = at + 2000): WatchSample => ({ at: when, error });
const refused = () => {
  const cause = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:9820"), { code: "ECONNREFUSED" });
  return new DaemonUnavailableError("the daemon refused the connection (nothing listens there)", { cause });
};
const hostUnreachable = () => {
  const cause = Object.assign(new Error("connect EHOSTUNREACH 10.0.0.9:9820"), { code: "EHOSTUNREACH" });
  return new DaemonUnavailableError("cannot reach the daemon (EHOSTUNREACH)", { cause });
};

const frame = (sample: WatchSample, previous?: WatchSample, colour = false) =>
  renderWatchFrame({
    address: "127.0.0.1:9820",
    sample,
    lastAnswered: previous,
    intervalMs: 2000,
    colour,
  });

describe("daemonCondition", () => {
  const cases: [string, WatchSample | undefined, WatchSample, DaemonCondition][] = [
    ["answering", undefined, answered(100), "up"],
    ["uptime grew with the clock", answered(100), answered(102, at + 2000), "up"],
    ["uptime went back", answered(100), answered(3, at + 2000), "restarted"],
    [
      "counters went back, soon after a start",
      answered(1),
      { at: at + 500, status: { ...status(0), totalProofsCompleted: 0 }, metrics },
      "restarted",
    ],
    [
      "a deadline passed (accepts, never answers)",
      answered(100),
      failed(new DeadlineExceededError("deadline exceeded")),
      "frozen",
    ],
    ["connection refused", answered(100), failed(refused()), "down"],
    ["host unreachable", answered(100), failed(hostUnreachable()), "network"],
    [
      "connection reset",
      answered(100),
      failed(new ConnectionLostError("the connection was reset")),
      "network",
    ],
    ["something else", undefined, failed(new Error("boom")), "error"],
  ];
  it.each(cases)("%s", (_name, previous, sample, expected) => {
    expect(daemonCondition(previous, sample)).toBe(expected);
  });
});

describe("renderWatchFrame", () => {
  it("draws an answering daemon: the condition, the GPUs and counters, no colour codes when colour is off", () => {
    const text = frame(answered(100));
    expect(text).toMatch(
      /^cuzkit status --watch: 127\.0\.0\.1:9820, every 2s, 12:00:00 UTC \(Ctrl-C stops\)\n/,
    );
    expect(text).toContain("daemon UP: answering");
    expect(text).toContain("7 proofs completed, 1 failed");
    expect(text).toContain("NVIDIA GeForce RTX 3090");
    expect(text).not.toContain("\u001b");
  });

  it("paints the condition word only when colour is on", () => {
    expect(frame(answered(100), undefined, true)).toContain("\u001b[32mUP\u001b[39m");
    expect(frame(failed(refused()), answered(100), true)).toContain("\u001b[31mDOWN\u001b[39m");
  });

  it("says which of frozen, down, network fault or restart it is, with the last answer while it does not answer", () => {
    const frozen = frame(failed(new DeadlineExceededError("deadline exceeded after 2000 ms")), answered(100));
    expect(frozen).toContain("daemon FROZEN: it accepts the connection but does not answer");
    expect(frozen).toContain("last answer 0m 2s ago: up 1m 40s, 7 proofs completed, 1 failed");
    expect(frame(failed(refused()), answered(100))).toContain("daemon DOWN: nothing listens there");
    expect(frame(failed(hostUnreachable()), answered(100))).toContain(
      "daemon NETWORK: the connection to the daemon fails between here and there",
    );
    expect(frame(answered(3, at + 2000), answered(3700))).toContain(
      "daemon RESTARTED: a new process: uptime went back from 1h 1m to 0m 3s, proofs completed from 7 to 7",
    );
  });

  it("shows the daemon's strings as text: escape sequences never reach the terminal", () => {
    const text = frame(answered(100, at, "RTX\u001b[2J\u001b]0;pwned\u0007 3090"));
    expect(text).not.toContain("\u001b");
    expect(text).not.toContain("\u0007");
    expect(text).toContain("RTX\ufffd[2J\ufffd]0;pwned\ufffd 3090");
    const message = frame(failed(new Error("bad \u001b[31m news")));
    expect(message).not.toContain("\u001b");
  });
});

describe("watchStatus on a stepped system clock", () => {
  it.each([
    // Uptime kept pace (instant refreshes, no time passed): on Date.now, +90 s reads as a restart.
    [90_000, [100, 100, 100], ["up", "up", "up"]],
    // A new process (uptime 100 s, then 9 s): on Date.now, -90 s makes 9 s look like time kept.
    [-90_000, [100, 9, 9], ["up", "restarted", "up"]],
  ] as const)(
    "reads the daemon right when the system clock steps %i ms between refreshes",
    async (stepMs, uptimes, expected) => {
      // The refreshes are instant (injected sleep), so on a clock that measures elapsed time no
      // time passed between them: the default clock must not step with the system's.
      let wallMs = at;
      vi.spyOn(Date, "now").mockImplementation(() => wallMs);
      onTestFinished(() => {
        vi.restoreAllMocks();
      });
      const stop = new AbortController();
      const conditions: DaemonCondition[] = [];
      const frames: string[] = [];
      let calls = 0;
      const client = {
        address: "127.0.0.1:9820",
        getStatus: async () => status(uptimes[Math.min(calls++, uptimes.length - 1)] ?? 0),
        getMetrics: async () => metrics,
      } as unknown as Parameters<typeof watchStatus>[0]["client"];
      const { io } = memoryIO({ env: { NO_COLOR: "1" } });
      await watchStatus({
        client,
        io,
        colour: false,
        signal: stop.signal,
        sleep: async () => {
          wallMs += stepMs;
        },
        onFrame: (frame, condition) => {
          frames.push(frame);
          conditions.push(condition);
          if (conditions.length === 3) stop.abort();
        },
      });
      expect(conditions).toEqual(expected);
      // The time of day shown follows the system clock, step included.
      expect(frames[1]).toContain(`${new Date(at + stepMs).toISOString().slice(11, 19)} UTC`);
    },
  );
});

describe("cuzkit status --watch against a simulated daemon", () => {
  it("refreshes until stopped, and shows a freeze, a crash and a restart for what they are", async () => {
    const daemon = await startSimDaemon({ proofTimeMs: 5, statusListen: "127.0.0.1:0" });
    onTestFinished(() => daemon.stop());
    const stop = new AbortController();
    const frames: { frame: string; condition: DaemonCondition }[] = [];
    const waiters: { condition: DaemonCondition; resolve: (frame: string) => void }[] = [];
    // Fails with what the view showed rather than hanging: the frames are the evidence.
    const next = (condition: DaemonCondition) =>
      new Promise<string>((resolve, reject) => {
        const timer = setTimeout(
          () =>
            reject(
              new Error(
                `no ${condition} frame; saw ${frames.map((f) => f.condition).join(" ")}: ${frames.at(-1)?.frame}`,
              ),
            ),
          15_000,
        );
        waiters.push({
          condition,
          resolve: (frame) => {
            clearTimeout(timer);
            resolve(frame);
          },
        });
      });
    const onFrame = (frame: string, condition: DaemonCondition) => {
      frames.push({ frame, condition });
      for (const w of waiters.splice(0)) {
        if (w.condition === condition) w.resolve(frame);
        else waiters.push(w);
      }
    };
    const stdout = memorySink(false);
    const { io } = memoryIO({ env: { NO_COLOR: "1" } });
    io.stdout = stdout;
    const { createStatusCommand } = await import("./status.js");
    const command = createStatusCommand(io, { stopSignal: stop.signal, onFrame });
    const up = next("up");
    const run = command.parseAsync(
      ["--addr", daemon.address, "--status-url", daemon.statusUrl ?? "", "--watch", "--interval", "100ms"],
      { from: "user" },
    );
    expect(await up).toMatch(/memory budget: /);

    const frozen = next("frozen");
    daemon.stall();
    expect(await frozen).toContain("daemon FROZEN");
    daemon.unstall();
    await next("up");

    // One proof done: the counters tell the new process apart however soon it comes back.
    const proved = await runCli(["prove", "--addr", daemon.address, "--synthetic"], memoryIO().io);
    expect(proved).toBe(0);
    await next("up");
    const down = next("down");
    daemon.crash();
    expect(await down).toContain("daemon DOWN: nothing listens there");

    const restarted = next("restarted");
    await daemon.restart();
    expect(await restarted).toContain("daemon RESTARTED");

    stop.abort();
    await run; // a clean end: the watch returns, nothing thrown
    // Not a terminal: one frame per refresh, no cursor or colour codes.
    const written = stdout.text();
    expect(written).not.toContain("\u001b");
    expect(written.split("cuzkit status --watch:").length - 1).toBe(frames.length);
  }, 60_000);

  it("on a terminal redraws in place; NO_COLOR leaves the cursor codes and drops the colour", async () => {
    const sim = await startSimDaemon({ proofTimeMs: 5 });
    onTestFinished(() => sim.stop());
    const stop = new AbortController();
    let count = 0;
    const stdout = memorySink(true);
    const { io } = memoryIO({ env: { NO_COLOR: "1" } });
    io.stdout = stdout;
    const { createStatusCommand } = await import("./status.js");
    const twoFrames = new Promise<void>((resolve) => {
      const command = createStatusCommand(io, {
        stopSignal: stop.signal,
        onFrame: () => {
          count += 1;
          if (count === 2) resolve();
        },
      });
      void command.parseAsync(["--addr", sim.address, "--watch", "--interval", "50ms"], {
        from: "user",
      });
    });
    await twoFrames;
    stop.abort();
    const written = stdout.text();
    expect(written.startsWith("\u001b[H\u001b[2Jcuzkit status --watch:")).toBe(true);
    expect(written.split("\u001b[H\u001b[2J").length - 1).toBeGreaterThanOrEqual(2);
    for (const colourCode of ["\u001b[1m", "\u001b[31m", "\u001b[32m", "\u001b[33m"])
      expect(written).not.toContain(colourCode);
  });

  it("ends cleanly (exit 0) on SIGINT in a real process", async () => {
    const sim = await startSimDaemon({ proofTimeMs: 5 });
    onTestFinished(() => sim.stop());
    const [node, base] = cuzkitArgv();
    const child = spawn(node, [...base, "status", "--addr", sim.address, "--watch", "--interval", "100ms"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    let out = "";
    await new Promise<void>((resolve, reject) => {
      child.stdout.on("data", (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes("daemon UP")) resolve();
      });
      void exited.then(() => reject(new Error(`exited before a frame: ${out}`)));
    });
    child.kill("SIGINT");
    expect(await exited).toBe(0);
  }, 30_000);

  it("refuses a bare --interval number with a unit hint instead of polling every 5 ms", async () => {
    const { io, stdout, stderr } = memoryIO();
    expect(await runCli(["status", "--addr", "127.0.0.1:9", "--watch", "--interval", "5"], io)).toBe(1);
    expect(stderr()).toContain(
      'error: --interval needs a unit, got "5"\nhint: 5s? durations need a unit: 500ms, 5s, 2m, 1h30m',
    );
    expect(stdout()).toBe("");
  });

  it("refuses --watch with --json, and --interval without --watch, before dialling", async () => {
    for (const args of [
      ["status", "--addr", "127.0.0.1:9", "--watch", "--json"],
      ["status", "--addr", "127.0.0.1:9", "--interval", "1s"],
    ]) {
      const { io, stderr } = memoryIO();
      expect(await runCli(args, io)).toBe(1);
      expect(stderr()).toMatch(/error: .*(--json|--interval).*\nhint: /);
    }
  });
});

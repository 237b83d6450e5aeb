import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import type { BenchmarkReport, FailureClass, VerdictStatus } from "@cuzkit/bench";
import { type SimDaemon, startSimDaemon } from "@cuzkit/sim";
import { beforeEach, describe, expect, it, onTestFinished } from "vitest";
import {
  cuzkitArgv,
  cuzkitShellCommand,
  repoRoot,
  startSimProcess,
} from "../../../../test/support/cuzkit-process.js";
import { processesMentioning } from "../../../../test/support/processes.js";
import { settlesWithin } from "../../../../test/support/settles-within.js";
import { slotRate } from "../../../../test/support/slot-rate.js";

// The fault matrix, end to end: `cuzkit bench` runs as its own process (so signals and orphans
// are real) against the simulator, either started here (unsupervised) or spawned by the bench
// (--spawn). Each row asserts the verdict, the exit code, the failure classes, the rate
// recomputed from the per-proof records, that the report was written, and that no daemon is left.

let dir = "";
beforeEach(async ({ onTestFinished }) => {
  dir = await mkdtemp(join(tmpdir(), "cuzkit-faults-"));
  // Registered first, so it runs last: after the daemons a row started are stopped.
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, "cuzk.toml"), "[synthesis]\npartition_workers = 2\n");
});

const sim = `${cuzkitShellCommand()} sim --ram 251GiB --cores 32 --gpus 2xRTX3090`;
const socket = () => `unix://${join(dir, "cuzk.sock")}`;
// A short watchdog, so a freeze is seen in under two seconds here, with room for a loaded
// machine: a healthy simulator in another process, starved of CPU beside the rest of the suite,
// has missed a 200 ms probe timeout and a 600 ms silence (a healthy daemon called frozen).
const fastWatch = ["--probe-interval", "100ms", "--probe-timeout", "500ms", "--unresponsive-after", "1500ms"];
const tuned = ["--ram", "251GiB", "--cores", "32", "--gpus", "2xRTX3090", "--dialect", "partition-workers"];

/** Starts a simulator process on this test's socket, stopped when the test ends; the bench's args to reach it. */
async function simProcess(proofTimeMs: number, fault: string): Promise<string[]> {
  const daemon = await startSimProcess([
    "--listen",
    socket(),
    "--proof-time-ms",
    String(proofTimeMs),
    "--fault",
    fault,
  ]);
  onTestFinished(async () => {
    await daemon.stop();
  });
  return ["--addr", socket()];
}
/** The bench's args to spawn (and supervise) the simulator with `simFlags`, on this test's config and socket. */
const spawnSim = (simFlags: string) => [
  "--spawn",
  `${sim} ${simFlags}`,
  "--config",
  join(dir, "cuzk.toml"),
  "--addr",
  socket(),
];
/** A synthetic batch of `count` proofs, no warmup, on the short watchdog; `flags` add to it. */
const batch = (count: number, ...flags: string[]) => [
  "--synthetic",
  "--count",
  String(count),
  "--warmup",
  "none",
  ...flags,
  ...fastWatch,
];

// `cuzkit bench`'s documented exit codes, written out here rather than taken from the bench.
const exitCodeOf: Record<VerdictStatus, number> = { MET: 0, FAILED: 1, BELOW: 2, UNSTABLE: 3 };

interface BenchRun {
  code: number | null;
  stdout: string;
  stderr: string;
  report: BenchmarkReport | undefined;
}

/** Runs `cuzkit bench ARGS --out report.jsonl` as a child process; `interrupt` sends a signal once stderr shows `after`. */
async function benchProcess(
  args: string[],
  interrupt?: { after: RegExp; signal: NodeJS.Signals },
): Promise<BenchRun> {
  const [node, base] = cuzkitArgv();
  const child: ChildProcess = spawn(node, [...base, "bench", ...args, "--out", join(dir, "report.jsonl")], {
    cwd: repoRoot,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = once(child, "exit");
  // A bench that outlives its test (a hang, a timeout) is stopped as a user would: SIGTERM, on
  // which it stops the daemon it spawned. Only if that fails is it killed.
  onTestFinished(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGTERM");
    if (!(await settlesWithin(exited, 15_000))) child.kill("SIGKILL");
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk) => {
    stdout += String(chunk);
  });
  let sent = false;
  createInterface({ input: child.stderr as NodeJS.ReadableStream }).on("line", (line) => {
    stderr += `${line}\n`;
    if (interrupt && !sent && interrupt.after.test(line)) {
      sent = true;
      child.kill(interrupt.signal);
    }
  });
  const [code] = (await exited) as [number | null];
  const saved = await readFile(join(dir, "report.jsonl"), "utf8").catch(() => "");
  const report =
    saved.trim() === "" ? undefined : (JSON.parse(saved.trim().split("\n").at(-1) ?? "") as BenchmarkReport);
  return { code, stdout, stderr, report };
}

/** Processes whose command line mentions this test's folder (a daemon left behind would). */
function leftovers(): string[] {
  return processesMentioning(dir);
}

interface Row {
  name: string;
  /** Starts what the bench runs against, before it (stopped when the test ends); returns extra bench args. */
  setup?: () => Promise<string[]>;
  args: () => string[];
  interrupt?: { after: RegExp; signal: NodeJS.Signals };
  /** The verdict; the exit code must be the one documented for it. */
  verdict: VerdictStatus;
  /** Failure classes that must appear among the per-proof records. */
  classes: FailureClass[];
  check?: (run: BenchRun & { report: BenchmarkReport }) => Promise<void> | void;
}

/** The daemon already answering where the "address in use" row's bench would listen. */
let answering: SimDaemon | undefined;

const rows: Row[] = [
  {
    name: "crash-after: the daemon dies mid-batch (unsupervised)",
    setup: () => simProcess(150, "crash-after=2"),
    args: () => batch(6, "--concurrency", "2"),
    verdict: "UNSTABLE",
    classes: ["died"],
    check: ({ report }) => {
      expect(report.completed).toBe(2);
      expect(report.verdict.incidents[0]).toMatch(/the daemon died/);
    },
  },
  {
    name: "crash-at near the end of the batch (supervised, --on-crash stop)",
    // 4 proofs of 1 s, 2 at a time: the daemon dies 1.7 s after listening, in the last wave.
    args: () => [
      ...spawnSim("--proof-time-ms 1000 --fault crash-at=1700"),
      ...batch(4, "--concurrency", "2"),
    ],
    verdict: "UNSTABLE",
    classes: ["died"],
    check: ({ report, stdout }) => {
      expect(report.daemonExits[0]).toMatchObject({ exitCode: 137, likelyOom: true });
      expect(report.daemonCrashes).toBe(1);
      expect(report.daemonRestarts).toBe(0);
      expect(stdout).toMatch(/daemon exit: killed \(exit 137\): most likely the kernel's OOM killer/);
      expect(stdout).toContain("its last");
    },
  },
  {
    name: "stall-after: the daemon freezes (unsupervised)",
    setup: () => simProcess(50, "stall-after=1"),
    args: () => batch(4),
    verdict: "UNSTABLE",
    classes: ["froze"],
    check: ({ report }) => {
      expect(report.completed).toBe(1);
      expect(report.verdict.reason).toMatch(/the daemon froze: no answer for/);
    },
  },
  {
    name: "stall mid-proof (supervised, --on-crash restart): killed, restarted, the batch continues",
    // Model timings: the two proofs share the pipeline and finish apart, so the stall after the
    // first catches the second mid-proof.
    args: () => [
      ...spawnSim("--time-scale 0.001 --fault stall-after=1"),
      ...batch(2, "--concurrency", "2", "--on-crash", "restart", "--max-restarts", "2"),
    ],
    verdict: "UNSTABLE",
    classes: [],
    check: ({ report }) => {
      expect(report.completed).toBe(2);
      expect(report.daemonExits[0]).toMatchObject({ frozen: true, likelyOom: false });
      expect(report.daemonRestarts).toBeGreaterThanOrEqual(1);
      expect(report.verdict.incidents[0]).toMatch(/the daemon froze/);
    },
  },
  {
    name: "fail-next: a proof fails on the daemon",
    setup: () => simProcess(20, "fail-next=1:partition 2 failed"),
    args: () => batch(3),
    verdict: "UNSTABLE",
    classes: ["failed"],
    check: ({ report }) => {
      expect(report.completed).toBe(2);
      expect(report.failed).toBe(1);
    },
  },
  {
    name: "start-delay: the daemon loads parameters before it listens",
    args: () => [...spawnSim("--proof-time-ms 20 --fault start-delay=700"), ...batch(2)],
    verdict: "MET",
    classes: [],
    check: ({ report }) => expect(report.completed).toBe(2),
  },
  {
    name: "address in use: something already answers where the daemon would listen",
    setup: async () => {
      answering = await startSimDaemon({ listen: socket(), proofTimeMs: 5 });
      onTestFinished(async () => {
        await answering?.stop();
        answering = undefined;
      });
      return [];
    },
    // Not batch(): the default warmup and watchdog, as a user would run it.
    args: () => [...spawnSim("--proof-time-ms 5"), "--synthetic", "--count", "2"],
    verdict: "FAILED",
    classes: [],
    check: ({ report }) => {
      expect(report.verdict.reason).toMatch(/something already answers at/);
      // Not one proof went to the other daemon.
      expect(Object.keys(answering?.stats().submissionsByRequestId ?? {})).toEqual([]);
    },
  },
  ...(["SIGTERM", "SIGINT"] as const).map(
    (signal): Row => ({
      name: `${signal} mid-batch: the report of what was done, and the daemon stopped`,
      args: () => [...spawnSim("--proof-time-ms 300"), ...batch(6)],
      interrupt: { after: /\[1\/6\] proof 1 completed/, signal },
      verdict: "FAILED",
      classes: [],
      check: ({ report, stdout }) => {
        expect(report.stopCause).toBe(`interrupted by ${signal}`);
        expect(report.completed).toBeGreaterThanOrEqual(1);
        expect(report.records.some((r) => r.outcome === "abandoned")).toBe(true);
        expect(stdout).toMatch(new RegExp(`verdict: FAILED: interrupted by ${signal}`));
      },
    }),
  ),
  {
    name: "crash during warmup: restarted with the warmup config",
    args: () => [
      "--spawn",
      // The warmup proof takes ~3.5 s here (176 modelled s at 0.02): a crash 2.5 s after listening lands inside it, on every start.
      `${sim} --time-scale 0.02 --fault crash-at=2500`,
      ...tuned,
      "--concurrency",
      "auto",
      "--param-cache",
      join(dir, "params"),
      "--daemon-log",
      join(dir, "daemon.log"),
      "--addr",
      socket(),
      "--synthetic",
      "--count",
      "2",
      "--on-crash",
      "restart",
      "--max-restarts",
      "1",
      ...fastWatch,
    ],
    verdict: "FAILED",
    classes: [],
    check: async ({ report }) => {
      expect(report.daemonCrashes).toBe(2);
      expect(report.daemonRestarts).toBe(1);
      expect(report.verdict.reason).toMatch(/the daemon died/);
      // The restart ran with the warmup config, not the full one that OOMs a cold start.
      const log = await readFile(join(dir, "daemon.log"), "utf8");
      const restart = log.slice(log.indexOf("starting the daemon (restart-1)"));
      const configPath = /config=(\S+cuzk-restart-1\.toml)/.exec(restart)?.[1] ?? "";
      expect(await readFile(configPath, "utf8")).toMatch(/^# warmup config \(cuzkit bench\)/);
    },
  },
];

describe("cuzkit bench fault matrix", () => {
  it.each(rows.map((row) => [row.name, row] as const))("%s", { timeout: 60_000 }, async (_name, row) => {
    const extra = (await row.setup?.()) ?? [];
    const run = await benchProcess([...row.args(), ...extra], row.interrupt);
    expect(run.report, run.stderr).toBeDefined();
    const report = run.report as BenchmarkReport;
    expect(report.verdict.status, run.stdout).toBe(row.verdict);
    expect(run.code).toBe(exitCodeOf[row.verdict]);
    const classes = new Set(report.records.map((r) => r.failureClass).filter((c) => c !== undefined));
    for (const expected of row.classes) expect([...classes]).toContain(expected);
    expect(report.proofsPerHour).toBeCloseTo(slotRate(report.records), 6);
    // The report is printed, and was written.
    expect(run.stdout).toMatch(/^verdict: /m);
    await row.check?.({ ...run, report });
    if (!row.setup) expect(leftovers()).toEqual([]);
  });
});

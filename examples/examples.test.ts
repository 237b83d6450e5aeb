import { execFile, spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { promisify } from "node:util";
import { createCuzkClient } from "@cuzkit/client";
import { createSyntheticC1, type SimDaemon, startSimDaemon } from "@cuzkit/sim";
import { type FakeVastServer, startFakeVastServer } from "@cuzkit/vast/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cuzkitArgv, repoRoot } from "../test/support/cuzkit-process.js";
import { processesMentioning } from "../test/support/processes.js";

// Every example runs as a user would run it (node with tsx), against the simulator or the
// fake Vast.ai server, so the README's snippets cannot rot.
const run = promisify(execFile);
const tsx = (script: string, args: string[], env: Record<string, string>) =>
  run(process.execPath, ["--import", "tsx", join(import.meta.dirname, script), ...args], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    timeout: 60_000,
  });

let dir = "";
let sim: SimDaemon | undefined;
let vast: FakeVastServer | undefined;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "cuzkit-examples-"));
  await writeFile(join(dir, "c1.json"), createSyntheticC1());
});
afterEach(async () => {
  await sim?.stop();
  await vast?.close();
  sim = undefined;
  vast = undefined;
  await rm(dir, { recursive: true, force: true });
});

describe("examples", () => {
  it("prove-one-proof writes the proof", async () => {
    sim = await startSimDaemon({ proofTimeMs: 10 });
    const { stdout } = await tsx("prove-one-proof.ts", [join(dir, "c1.json"), join(dir, "proof.bin")], {
      CUZK_ADDR: sim.address,
    });
    expect(stdout).toMatch(/1920 bytes/);
    expect((await readFile(join(dir, "proof.bin"))).byteLength).toBe(1920);
  });

  it("run-benchmark prints a report with a verdict", async () => {
    sim = await startSimDaemon({ proofTimeMs: 10 });
    const { stdout } = await tsx("run-benchmark.ts", [join(dir, "c1.json")], { CUZK_ADDR: sim.address });
    expect(stdout).toMatch(/timed: +6 completed/);
    expect(stdout).toMatch(/verdict: MET/);
  });

  it("tune-this-machine reads this machine and explains what fits", async () => {
    const { stdout, stderr } = await tsx("tune-this-machine.ts", [], {});
    expect(stderr).toMatch(/ramBytes: \d+ \(from /);
    // This CI machine has too little RAM for PoRep; a GPU box gets a cuzk.toml instead.
    expect(stdout).toMatch(/no safe config|\[pipeline\]/);
  });

  it("vast-offers-sized ranks offers by predicted proofs per dollar", async () => {
    vast = await startFakeVastServer();
    const { stdout } = await tsx("vast-offers-sized.ts", [], {
      VAST_URL: vast.url,
      VAST_API_KEY: vast.apiKey,
    });
    expect(stdout).toMatch(/proofsPerDollar/);
    expect(stdout).not.toContain(vast.apiKey);
  });

  /** Starts the image's entrypoint with the simulator (given `simFlags`) as its daemon; `stdout` lines are collected. */
  function startEntrypoint(extra: Record<string, string>, simFlags = "") {
    const [node, args] = cuzkitArgv();
    const cuzkit = [node, ...args].join(" ");
    // A unix socket: a TCP port found free now could be taken before the daemon binds it.
    const address = `unix://${join(dir, "cuzk.sock")}`;
    const machine = "--ram 251GiB --cores 32 --gpus 2xRTX3090";
    const child = spawn("bash", [join(import.meta.dirname, "prover-image/entrypoint.sh")], {
      env: {
        ...process.env,
        CUZKIT: cuzkit,
        CUZK_DAEMON: `${cuzkit} sim ${machine} --time-scale 0.0005 ${simFlags}`,
        CUZK_ADDR: address,
        CUZK_C1: join(dir, "c1.json"),
        CUZKIT_MACHINE: machine,
        OUT_DIR: join(dir, "out"),
        PARAM_CACHE: join(dir, "params"),
        BENCH_COUNT: "3",
        MIN_PROOFS_PER_HOUR: "1",
        ...extra,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    const waitForLine = (stream: NodeJS.ReadableStream, pattern: RegExp) =>
      new Promise<string>((resolve, reject) => {
        createInterface({ input: stream }).on("line", (line) => {
          if (pattern.test(line)) resolve(line);
        });
        void exited.then((code) => reject(new Error(`entrypoint exited with ${code}`)));
      });
    return { child, address, exited, waitForLine };
  }

  /** Processes whose command line mentions the test's folder (a daemon left behind would). */
  const leftovers = () => processesMentioning(dir);

  // Each entrypoint test starts five to seven node processes from source (tsx): about 10 s on an
  // idle two-core machine, 90 s seen on a loaded one. Nothing in them waits on time.
  const entrypointTimeoutMs = 180_000;

  it("prover-image/entrypoint.sh tunes, benchmarks with the daemon spawned, then serves; SIGTERM stops it", {
    timeout: entrypointTimeoutMs,
  }, async () => {
    const image = startEntrypoint({});
    try {
      await image.waitForLine(image.child.stdout as NodeJS.ReadableStream, /^serving on /);
      const client = createCuzkClient({ address: image.address });
      // The serving daemon starts after "serving on" is printed: ready is when it answers.
      await client.waitForReady({ timeoutMs: 90_000 });
      await client.close();
      expect((await readFile(join(dir, "out", "bench.status"), "utf8")).trim()).toBe("0");
      const report = JSON.parse((await readFile(join(dir, "out", "bench.jsonl"), "utf8")).trim());
      expect(report).toMatchObject({ completed: 3, verdict: { status: "MET" } });
      expect(await readFile(join(dir, "out", "cuzk.toml"), "utf8")).toMatch(/total_budget = "\d+GiB"/);
      // The daemons' output is kept in a file, the benchmark's and the serving one's.
      const log = await readFile(join(dir, "out", "daemon.log"), "utf8");
      expect(log).toMatch(/== cuzkit bench: starting the daemon \(full\)/);
      expect(log.match(/^listening /gm)?.length).toBe(2);
      const status = JSON.parse(await readFile(join(dir, "out", "bench-status.json"), "utf8"));
      expect(status).toMatchObject({ phase: "done", verdict: { status: "MET" } });
    } finally {
      image.child.kill("SIGTERM");
    }
    expect(await image.exited).toBe(0);
    expect(leftovers()).toEqual([]);
  });

  it("prover-image/entrypoint.sh: SIGTERM mid-benchmark writes the report, stops the daemon and does not serve", {
    timeout: entrypointTimeoutMs,
  }, async () => {
    // The daemon holds every proof after the first: the batch is still running when the signal
    // comes, however slow or fast this machine is.
    const image = startEntrypoint({ BENCH_COUNT: "6", BENCH_FLAGS: "--warmup none" }, "--fault hold-after=1");
    image.child.stdout?.resume();
    await image.waitForLine(image.child.stderr as NodeJS.ReadableStream, /\[1\/6\] proof \d completed/);
    image.child.kill("SIGTERM");
    expect(await image.exited).toBe(143);
    expect((await readFile(join(dir, "out", "bench.status"), "utf8")).trim()).toBe("1");
    const text = await readFile(join(dir, "out", "bench.txt"), "utf8");
    expect(text).toMatch(/verdict: FAILED: interrupted by SIGTERM/);
    const report = JSON.parse((await readFile(join(dir, "out", "bench.jsonl"), "utf8")).trim());
    expect(report.stopCause).toBe("interrupted by SIGTERM");
    expect(report.completed).toBe(1);
    // No daemon left, and none started to serve.
    expect(leftovers()).toEqual([]);
    expect(await readFile(join(dir, "out", "daemon.log"), "utf8")).not.toContain("serving");
  });
});

import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CuzkitError } from "@cuzkit/core";
import { AwaitProofResponse_Status, ProofKind } from "@cuzkit/proto";
import { createSyntheticC1, type SimDaemon } from "@cuzkit/sim";
import { createPlainGrpcClient, type PlainGrpcClient } from "@cuzkit/sim/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cuzkitArgv, repoRoot } from "../../../../test/support/cuzkit-process.js";
import { CommandExit } from "../io.js";
import { memoryIO } from "../test-support/memory-io.js";
import { createSimCommand } from "./sim.js";
import { parseFaults } from "./sim-faults.js";

const porep = (requestId: string) => ({
  requestId,
  proofKind: ProofKind.POREP_SEAL_COMMIT,
  vanillaProof: createSyntheticC1(),
});

let dir = "";
const clients: PlainGrpcClient[] = [];
const children: ChildProcessWithoutNullStreams[] = [];
const stoppers: AbortController[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "cuzkit-sim-cli-"));
});
afterEach(() => {
  for (const client of clients.splice(0)) client.close();
  for (const stopper of stoppers.splice(0)) stopper.abort();
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

/** Runs the command in-process; resolves with the daemon once it listens, and with how the command ended. */
function runInProcess(args: string[]) {
  const output = memoryIO({ cwd: dir });
  const stopper = new AbortController();
  stoppers.push(stopper);
  let started: (daemon: SimDaemon) => void = () => {};
  const daemon = new Promise<SimDaemon>((resolve) => {
    started = resolve;
  });
  const command = createSimCommand(output.io, {
    shutdownSignal: stopper.signal,
    onStarted: (d) => started(d),
  }).exitOverride();
  const done = command.parseAsync(args, { from: "user" });
  done.catch(() => {});
  return { ...output, daemon, done, stop: () => stopper.abort() };
}

async function failure(args: string[]): Promise<unknown> {
  const run = runInProcess(args);
  return run.done.then(
    () => {
      throw new Error("expected the command to fail");
    },
    (error: unknown) => error,
  );
}

describe("cuzkit sim (in process)", () => {
  it("documents every flag with examples", () => {
    const help = createSimCommand(memoryIO({ cwd: dir }).io).helpInformation();
    for (const flag of [
      "--listen",
      "--status-listen",
      "--ram",
      "--cores",
      "--gpus",
      "--memory-limit",
      "--config",
      "--dialect",
      "--time-scale",
      "--proof-time-ms",
      "--pce-cached",
      "--fault",
      "--log-level",
    ]) {
      expect(help).toContain(flag);
    }
    const withText = createSimCommand(memoryIO({ cwd: dir }).io);
    let text = "";
    withText.configureOutput({ writeOut: (t) => (text += t) }).exitOverride();
    expect(() => withText.parse(["--help"], { from: "user" })).toThrow();
    expect(text).toMatch(/Examples:\n {2}cuzkit sim --listen 127\.0\.0\.1:9820/);
  });

  it("prints `listening <address>` first, serves, and ends with exit 0 when told to stop", async () => {
    const run = runInProcess([
      "--listen",
      "127.0.0.1:0",
      "--status-listen",
      "127.0.0.1:0",
      "--proof-time-ms",
      "0",
    ]);
    const daemon = await run.daemon;
    const [first, second] = run.stdout().split("\n");
    expect(first).toBe(`listening ${daemon.address}`);
    expect(first).toMatch(/^listening 127\.0\.0\.1:\d+$/);
    expect(second).toBe(`status ${daemon.statusUrl}`);
    const client = createPlainGrpcClient(daemon.address);
    clients.push(client);
    expect((await client.prove({ submit: porep("a") })).result?.status).toBe(
      AwaitProofResponse_Status.COMPLETED,
    );
    run.stop();
    await run.done;
    expect(daemon.state).toBe("stopped");
    expect(run.stderr()).toContain("listening");
  });

  it("passes faults through: fail-next with a message", async () => {
    const run = runInProcess([
      "--listen",
      "127.0.0.1:0",
      "--proof-time-ms",
      "0",
      "--fault",
      "fail-next=1:partition 3 synthesis failed: test",
    ]);
    const client = createPlainGrpcClient((await run.daemon).address);
    clients.push(client);
    const { result } = await client.prove({ submit: porep("f") });
    expect(result?.errorMessage).toBe("partition 3 synthesis failed: test");
  });

  it("ends with exit code 137 and says why when the simulated daemon is OOM-killed", async () => {
    // The budget daemon sizes its budget from host RAM, not the container limit: with its
    // defaults all 10 partitions synthesize at once, about 245 GiB.
    const run = runInProcess(["--listen", "127.0.0.1:0", "--dialect", "budget", "--memory-limit", "200GiB"]);
    const client = createPlainGrpcClient((await run.daemon).address);
    clients.push(client);
    await client.prove({ submit: porep("doomed") }).catch(() => undefined);
    const error = await run.done.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(CommandExit);
    expect((error as CommandExit).exitCode).toBe(137);
    expect(run.stderr()).toMatch(/oom-kill: modelled memory \d+\.\d GiB exceeds 200\.0 GiB/);
  });

  it("reads a cuzk.toml with --config and reports what the daemon would ignore", async () => {
    const path = join(dir, "cuzk.toml");
    writeFileSync(
      path,
      "[synthesis]\npartition_workers = 2\n[gpus]\ngpu_workers_per_device = 2\nbogus = 1\n",
    );
    const run = runInProcess(["--listen", "127.0.0.1:0", "--config", "cuzk.toml"]);
    const daemon = await run.daemon;
    expect(daemon.options.config).toMatchObject({
      dialect: "partition-workers",
      partitionWorkers: 2,
      gpuWorkersPerDevice: 2,
    });
    expect(run.stderr()).toMatch(/config unknown: gpus\.bogus/);
    run.stop();
    await run.done;
  });

  it.each<[string, string[], RegExp]>([
    ["an unknown fault", ["--fault", "explode=1"], /unknown or incomplete fault "explode=1"/],
    ["a fault without a value", ["--fault", "crash-after"], /unknown or incomplete fault/],
    ["a bad fault count", ["--fault", "crash-after=soon"], /crash-after must be a whole number/],
    ["a bad size", ["--ram", "lots"], /cannot read the size "lots"/],
    ["a bad GPU list", ["--gpus", "2xWarpDrive"], /unknown GPU model/],
    ["a bad time scale", ["--time-scale", "0"], /--time-scale must be a number above 0/],
    ["a non-numeric time scale", ["--time-scale", "fast"], /--time-scale must be a number above 0/],
    ["a bad dialect", ["--dialect", "newest"], /unknown dialect "newest"/],
    ["bad cores", ["--cores", "many"], /--cores must be a whole number/],
    ["a hostname to listen on", ["--listen", "localhost:9820"], /invalid listen address/],
    ["a missing config", ["--config", "nope.toml"], /cannot read the config/],
  ])("refuses %s with a clear error and a hint", async (_name, args, message) => {
    const error = await failure(args);
    expect(CuzkitError.is(error)).toBe(true);
    expect((error as CuzkitError).message).toMatch(message);
    expect((error as CuzkitError).hint).not.toBe("");
  });

  it("refuses a config that is not TOML", async () => {
    writeFileSync(join(dir, "broken.toml"), "[synthesis\npartition_workers = ");
    const error = await failure(["--config", "broken.toml"]);
    expect((error as CuzkitError).message).toMatch(/not valid TOML/);
  });
});

describe("parseFaults", () => {
  it("reads every fault form", () => {
    expect(
      parseFaults([
        "crash-after=3",
        "crash-at=5000",
        "fail-next=2:bad input",
        "hold-after=2",
        "stall-after=1",
        "start-delay=2000",
      ]),
    ).toEqual({
      crashAfterProofs: 3,
      crashAtMs: 5000,
      failNextProofs: { count: 2, message: "bad input" },
      holdAfterProofs: 2,
      stallAfterProofs: 1,
      startDelayMs: 2000,
    });
    expect(parseFaults(["fail-next=2"])).toEqual({ failNextProofs: { count: 2 } });
  });
});

// The command as a real child process, the way a supervisor or the bench runs it.
function spawnSim(args: string[]) {
  const [node, cuzkit] = cuzkitArgv();
  const child = spawn(node, [...cuzkit, "sim", ...args], { cwd: repoRoot });
  children.push(child);
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => (stdout += String(chunk)));
  child.stderr.on("data", (chunk) => (stderr += String(chunk)));
  const listening = new Promise<string>((resolve, reject) => {
    const onData = () => {
      const match = /^listening (\S+)\n/.exec(stdout);
      if (match) {
        child.stdout.off("data", onData);
        resolve(match[1]!);
      }
    };
    child.stdout.on("data", onData);
    child.once("exit", (code) => reject(new Error(`sim exited with ${code} before listening: ${stderr}`)));
  });
  listening.catch(() => {});
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, listening, exited, stderr: () => stderr };
}

describe("cuzkit sim (child process)", () => {
  it("listens on port 0, answers, and exits 0 on SIGTERM", async () => {
    const sim = spawnSim(["--listen", "127.0.0.1:0", "--proof-time-ms", "0"]);
    const address = await sim.listening;
    expect(address).toMatch(/^127\.0\.0\.1:[1-9]\d*$/);
    const client = createPlainGrpcClient(address);
    clients.push(client);
    expect((await client.prove({ submit: porep("child") })).result?.status).toBe(
      AwaitProofResponse_Status.COMPLETED,
    );
    sim.child.kill("SIGTERM");
    expect(await sim.exited).toBe(0);
  });

  it("exits 137 with an oom-kill line when the config runs out of memory", async () => {
    const path = join(dir, "pw10.toml");
    writeFileSync(path, "[synthesis]\npartition_workers = 10\n");
    const sim = spawnSim(["--listen", "127.0.0.1:0", "--ram", "128GiB", "--config", path]);
    const client = createPlainGrpcClient(await sim.listening);
    clients.push(client);
    await client.prove({ submit: porep("oom") }).catch(() => undefined);
    expect(await sim.exited).toBe(137);
    expect(sim.stderr()).toMatch(/oom-kill: modelled memory \d+\.\d GiB exceeds 128\.0 GiB/);
  });
});

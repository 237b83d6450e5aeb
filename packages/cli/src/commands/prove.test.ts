import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSyntheticC1, type SimDaemon, startSimDaemon } from "@cuzkit/sim";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "../run-cli.js";
import { memoryIO } from "../test-support/memory-io.js";
import { defaultRestartWaitMs } from "./prove.js";

let sim: SimDaemon | undefined;
let dir = "";
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "cuzkit-prove-"));
  await writeFile(join(dir, "c1.json"), createSyntheticC1({ sectorNumber: 42 }));
});
afterEach(async () => {
  await sim?.stop();
  sim = undefined;
  await rm(dir, { recursive: true, force: true });
});

async function cli(args: string[], env: Record<string, string> = {}) {
  const { io, stdout, stderr } = memoryIO({ cwd: dir, env });
  const code = await runCli(args, io);
  return { code, stdout: stdout(), stderr: stderr() };
}

/** `cuzkit prove` of this test's c1.json against `address`, written to proof.bin. */
const proveC1ToFile = (address: string) =>
  cli(["prove", "--addr", address, "--c1", "c1.json", "--out", "proof.bin"]);

describe("cuzkit prove", () => {
  it("exits non-zero naming DAEMON_STUCK, with the evidence and a hint, when the daemon answers but never finishes", async () => {
    sim = await startSimDaemon({ proofTimeMs: 0, faults: { stickAfterProofs: 0 } });
    const { code, stderr } = await cli([
      "prove",
      "--addr",
      sim.address,
      "--synthetic",
      "--stuck-after",
      "300ms",
    ]);
    expect(code).toBe(1);
    expect(stderr).toMatch(
      /DAEMON_STUCK: porep-\S+ made no progress for \d+\.\d s \(window 0\.3 s; --stuck-after sets it\); not resubmitted/,
    );
    expect(stderr).toMatch(
      /error: PoRep C2 proof \S+ made no progress .*the daemon still answers GetStatus .*0 completed, 0 failed/,
    );
    expect(stderr).toMatch(/hint: .*nvidia-smi.*restart the daemon.*--stuck-after/);
    expect(Object.values(sim.stats().submissionsByRequestId)).toEqual([1]);
  });

  it.each([
    ["a bare number", ["--stuck-after", "5"], /--stuck-after needs a unit/],
    ["a zero margin", ["--stuck-margin", "0"], /--stuck-margin must be a number above 0/],
  ])("refuses %s for the stuck window before contacting the daemon", async (_label, flags, message) => {
    sim = await startSimDaemon({ proofTimeMs: 0 });
    const { code, stderr } = await cli(["prove", "--addr", sim.address, "--synthetic", ...flags]);
    expect(code).not.toBe(0);
    expect(stderr).toMatch(message);
    expect(sim.stats().callsReceived).toEqual({});
  });

  it("proves from a C1 file and writes the proof bytes", async () => {
    sim = await startSimDaemon({ proofTimeMs: 5 });
    const { code, stdout } = await proveC1ToFile(sim.address);
    expect(code).toBe(0);
    expect(stdout).toMatch(/completed .*: 1920 bytes of proof/);
    expect((await readFile(join(dir, "proof.bin"))).byteLength).toBe(1920);
    expect(await readdir(dir)).toEqual(["c1.json", "proof.bin"]);
  });

  it("prints JSON with the proof as hex", async () => {
    sim = await startSimDaemon({ proofTimeMs: 5 });
    const { code, stdout } = await cli(["prove", "--synthetic", "--json"], { CUZK_ADDR: sim.address });
    expect(code).toBe(0);
    const result = JSON.parse(stdout);
    expect(result).toMatchObject({ kind: "porep", proofBytes: 1920, attempts: 1 });
    expect(result.proofHex).toHaveLength(3840);
  });

  it("proves WinningPoSt from a vanilla proofs file", async () => {
    sim = await startSimDaemon({ proofTimeMs: 5 });
    await writeFile(join(dir, "winning.json"), JSON.stringify([Buffer.from("vanilla").toString("base64")]));
    const { code, stdout } = await cli([
      "prove",
      "--addr",
      sim.address,
      "--kind",
      "winning-post",
      "--vanilla",
      "winning.json",
      "--json",
    ]);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ kind: "winning", proofBytes: 192 });
  });

  it("fails with the daemon's message and writes nothing when the proof fails", async () => {
    sim = await startSimDaemon({
      proofTimeMs: 5,
      faults: { failNextProofs: { count: 1, message: "partition 2 GPU prove failed: boom" } },
    });
    const { code, stderr } = await proveC1ToFile(sim.address);
    expect(code).toBe(1);
    expect(stderr).toMatch(/partition 2 GPU prove failed: boom/);
    expect(stderr).toMatch(/hint: /);
    expect(await readdir(dir)).toEqual(["c1.json"]);
  });

  it.each([
    [["--kind", "snap", "--vanilla", "c1.json"], /SnapDeals needs --comm-r-old, --comm-r-new, --comm-d-new/],
    [["--kind", "wpost"], /wpost needs --vanilla FILE/],
    [
      ["--kind", "winning", "--vanilla", "c1.json", "--randomness", "abcd"],
      /randomness is not 32 bytes of hex/,
    ],
    [["--timeout", "soon", "--synthetic"], /--timeout must be a duration/],
  ])("rejects %j before dialling", async (args, message) => {
    sim = await startSimDaemon({ proofTimeMs: 5 });
    const { code, stderr } = await cli(["prove", "--addr", sim.address, ...args]);
    expect(code).toBe(1);
    expect(stderr).toMatch(message);
    expect(sim.stats().connections).toBe(0);
  });

  it.each([
    [
      "an existing folder",
      "sub",
      /^error: --out sub is a directory\nhint: give a file path, such as --out sub\/proof\.bin$/m,
    ],
    [
      "a file in a missing folder",
      "missing/proof.bin",
      /^error: --out missing\/proof\.bin: its folder .*missing does not exist or is not writable\nhint: give --out a file in a folder that exists and is writable$/m,
    ],
  ])("refuses --out as %s before the proof is submitted", async (_case, out, message) => {
    sim = await startSimDaemon({ proofTimeMs: 5 });
    await mkdir(join(dir, "sub"));
    const { code, stderr } = await cli(["prove", "--addr", sim.address, "--c1", "c1.json", "--out", out]);
    expect(code).toBe(1);
    expect(stderr).toMatch(message);
    // Nothing was sent: no connection, no submit, no GPU minutes spent on a proof that could not be kept.
    expect(sim.stats().connections).toBe(0);
    expect(sim.stats().submissionsByRequestId).toEqual({});
    expect(sim.stats().proofsCompleted).toBe(0);
    expect((await readdir(dir)).sort()).toEqual(["c1.json", "sub"]);
  });

  it("says at once that it waits for a restart of a daemon that died mid-proof, then fails naming it after --restart-wait", async () => {
    sim = await startSimDaemon({ proofTimeMs: 600_000 });
    const run = cli(["prove", "--addr", sim.address, "--synthetic", "--restart-wait", "1s"]);
    await sim.whenReceived("AwaitProof");
    sim.crash(); // nobody restarts it: every new connection is refused
    const { code, stderr } = await run;
    expect(code).toBe(1);
    expect(stderr).toMatch(/daemon unreachable since \d\d:\d\d:\d\d UTC, waiting up to 1s for a restart/);
    expect(stderr).toMatch(/^error: .*did not answer for \d+ ms after the connection broke/im);
    expect(stderr).toMatch(/^hint: the daemon process may have died.*longer --restart-wait/im);
    // The wait is announced before it is over: the line comes before the error.
    expect(stderr.indexOf("waiting up to")).toBeLessThan(stderr.search(/^error:/m));
  });

  it("waits at most 40 s for a restart by default, so a dead daemon surfaces within 45 s", async () => {
    expect(defaultRestartWaitMs).toBeLessThanOrEqual(40_000);
    const { stdout } = await cli(["prove", "--help"]);
    expect(stdout).toMatch(/--restart-wait <duration>[\s\S]*default 40s/);
  });

  it("rejects a bad address at once", async () => {
    const { code, stderr } = await cli(["prove", "--addr", "localhost:notaport", "--synthetic"]);
    expect(code).toBe(1);
    expect(stderr).toMatch(/^error: .*address/im);
  });
});

describe("cuzkit status", () => {
  it("shows one row per GPU, counters and metrics, and the HTTP status view", async () => {
    sim = await startSimDaemon({ proofTimeMs: 5, statusListen: "127.0.0.1:0" });
    await cli(["prove", "--addr", sim.address, "--synthetic"]);
    const { code, stdout } = await cli([
      "status",
      "--addr",
      sim.address,
      "--status-url",
      sim.statusUrl ?? "",
    ]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/1 proofs completed, 0 failed/);
    // The default simulated machine has 2 GPUs: two rows, whatever the workers per GPU.
    expect(stdout.match(/RTX 3090/g)).toHaveLength(2);
    expect(stdout).toMatch(/PoRep C2 .* 1 /);
    expect(stdout).toMatch(/memory budget: /);
  });

  it("prints JSON with --json", async () => {
    sim = await startSimDaemon({ proofTimeMs: 5 });
    const { code, stdout } = await cli(["status", "--addr", sim.address, "--json"]);
    expect(code).toBe(0);
    const parsed = JSON.parse(stdout);
    expect(parsed.status.gpus).toHaveLength(2);
    expect(parsed.metrics.gpuWorkers).toBeGreaterThanOrEqual(2);
  });

  it("says the daemon is unreachable, with a hint", async () => {
    const { code, stderr } = await cli(["status", "--addr", "127.0.0.1:9"]);
    expect(code).toBe(1);
    expect(stderr).toMatch(/error: .*\nhint: /);
  });
});

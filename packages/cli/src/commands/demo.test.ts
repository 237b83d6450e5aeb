import { describe, expect, it } from "vitest";
import { runCli } from "../run-cli.js";
import { memoryIO } from "../test-support/memory-io.js";

describe("cuzkit demo", () => {
  it("tunes Czechia, benchmarks it in machine time, and replays its own pw=10 config to the OOM kill", async () => {
    const { io, stdout, stderr } = memoryIO();
    const code = await runCli(["demo", "--proofs", "4", "--seconds", "3"], io);
    const err = stderr();
    // The warmup writes the PCE file and the restarted daemon reads it: the demo's story holds.
    expect(err).toMatch(/the PCE file pce-porep-32g\.bin is in/);
    expect(err).toContain("restarting the daemon with the full config");
    expect(err).toContain("concurrency 2");
    const out = stdout();
    expect(out).toMatch(/timed: +4 completed, 0 failed of 4/);
    // Shown in the simulated machine's time: a PoRep proof takes minutes, not milliseconds.
    const throughput = Number(/throughput: +([\d.]+) proofs\/hour/.exec(out)?.[1]);
    expect(throughput).toBeGreaterThan(5);
    // The simulator runs the model's law: a short window after a restart cannot beat its steady state.
    const model = Number(
      /tuned: .* proofs\/h simulated \(model [\d.]+\/h over this window, ([\d.]+)\/h steady\)/.exec(out)?.[1],
    );
    expect(throughput).toBeLessThanOrEqual(model);
    expect(out).toContain("(machine time)");
    // The incident's own config, and the OOM explained from what a supervisor sees: exit 137 and the log.
    expect(out).toContain("partition_workers=10, 2 proofs in flight");
    // The warmup with partition_workers=2 completes, and the demo says so; the OOM comes in the timed batch.
    expect(out).toMatch(/- warmup \(.*\): peak .* usable: fits/);
    expect(out).toMatch(/- steady \(.*\): peak .* usable: OOM kill expected/);
    expect(out).not.toContain("OOM expected in warmup");
    expect(out).toMatch(/exit: code 137 -> killed \(exit 137\): most likely the kernel's OOM killer/);
    expect(out).toMatch(/incident: .*: UNSTABLE/);
    expect(out).toMatch(/minimum 40 proofs\/h, an example/);
    expect(code).toBe(0);
  }, 60_000);

  it("rejects an unknown profile with the list of known ones", async () => {
    const { io, stderr } = memoryIO();
    expect(await runCli(["demo", "--profile", "mars"], io)).toBe(1);
    expect(stderr()).toMatch(/unknown demo profile "mars"\nhint: use one of czechia-2x3090, bc-canada-125gb/);
  });
});

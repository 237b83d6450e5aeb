import { describe, expect, it } from "vitest";
import { runCli } from "../run-cli.js";
import { memoryIO } from "../testing/memory-io.js";

describe("cuzkit demo", () => {
  it("tunes the incident machine, benchmarks it, and shows the hand-set config's OOM", async () => {
    const { io, stdout, stderr } = memoryIO();
    const code = await runCli(["demo", "--proofs", "4", "--seconds", "3"], io);
    expect(stderr()).toContain("restarting the daemon with the full config");
    const out = stdout();
    expect(out).toMatch(/timed: +4 completed, 0 failed of 4/);
    expect(out).toMatch(/OOM-KILL EXPECTED/);
    expect(out).toMatch(/the daemon was killed \(exit 137\): the OOM killer/);
    // Shown in the simulated machine's time: a PoRep proof takes minutes, not milliseconds.
    const throughput = Number(/throughput: +([\d.]+) proofs\/hour/.exec(out)?.[1]);
    expect(throughput).toBeGreaterThan(5);
    expect(throughput).toBeLessThan(50);
    expect(code).toBe(0);
  }, 60_000);

  it("rejects an unknown profile with the list of known ones", async () => {
    const { io, stderr } = memoryIO();
    expect(await runCli(["demo", "--profile", "mars"], io)).toBe(1);
    expect(stderr()).toMatch(/unknown demo profile "mars"\nhint: use one of czechia-2x3090, bc-canada-125gb/);
  });
});

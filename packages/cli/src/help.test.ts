import { benchDefaults } from "@cuzkit/bench";
import { defaultDeadlines, defaultResubmit } from "@cuzkit/client";
import { agentDefaults, fleetDefaults } from "@cuzkit/fleet/defaults";
import { tuneDefaults } from "@cuzkit/tuner";
import { defaultDiskGb, defaultLogOptions, defaultWaitOptions } from "@cuzkit/vast";
import { describe, expect, it } from "vitest";
import { durationText } from "./parse.js";
import { runCli } from "./run-cli.js";
import { memoryIO } from "./test-support/memory-io.js";

async function help(...command: string[]): Promise<string> {
  const { io, stdout } = memoryIO();
  expect(await runCli([...command, "--help"], io)).toBe(0);
  return stdout().replace(/\s+/g, " ");
}

describe("help text states the packages' own defaults", () => {
  it("prove: the client's deadlines and resubmit budgets", async () => {
    const text = await help("prove");
    expect(text).toContain(
      `default ${durationText(defaultDeadlines.proofMs)}, warmup ${durationText(defaultDeadlines.warmupProofMs)}`,
    );
    expect(text).toContain(`${defaultResubmit.wpost} for wpost`);
  });
  it("tune: the tuner's defaults", async () => {
    const text = await help("tune");
    expect(text).toContain(`(default ${tuneDefaults.postSlots})`);
    expect(text).toContain(`default ${durationText(tuneDefaults.minProveTimeoutSec * 1000)};`);
    expect(text).toContain(`(default: ${tuneDefaults.workload})`);
  });
  it("vast: the client's log, wait and disk defaults", async () => {
    expect(await help("vast", "logs")).toContain(`(default: "${defaultLogOptions.tail}")`);
    expect(await help("vast", "rent")).toContain(`(default: "${defaultWaitOptions.timeoutMs / 60_000}")`);
    expect(await help("vast", "offers")).toContain(`(default: "${defaultDiskGb}")`);
  });
  it("bench: the harness's ready timeout and restart budget", async () => {
    const text = await help("bench");
    expect(text).toContain(`answer (default ${durationText(benchDefaults.readyTimeoutMs)})`);
    expect(text).toContain(`restarts allowed (default ${benchDefaults.maxRestarts})`);
  });
  it("agent: the bench's and the client's deadlines, and the agent's report interval", async () => {
    const text = await help("agent");
    expect(text).toContain(`answer (default ${durationText(benchDefaults.readyTimeoutMs)})`);
    expect(text).toContain(`timed proof (default ${durationText(defaultDeadlines.proofMs)})`);
    expect(text).toContain(`warmup proof (default ${durationText(defaultDeadlines.warmupProofMs)})`);
    expect(text).toContain(`reported (default ${durationText(agentDefaults.throughputIntervalMs)})`);
    expect(text).toContain(`timed proofs (default: ${fleetDefaults.benchmarkProofs})`);
  });
  it("fleet: the fleet's config and store defaults", async () => {
    const serve = await help("fleet", "serve");
    expect(serve).toContain(`GB (default ${fleetDefaults.diskGb})`);
    expect(serve).toContain(`benchmark (default ${fleetDefaults.benchmarkProofs})`);
    expect(serve).toContain(`durations (default ${fleetDefaults.deadlineMargin})`);
    expect(serve).toContain(`tables (default ${fleetDefaults.postgresSchema})`);
    expect(serve).toContain(`--curio-db (default ${fleetDefaults.curioSchema})`);
    expect(serve).toContain(`leader renews it (default ${durationText(fleetDefaults.leaseCheckEveryMs)}`);
    expect(serve).toContain(`check (default ${durationText(fleetDefaults.leasePeriodMs)})`);
    expect(serve).toContain(`(default: "${fleetDefaults.fleet}")`);
    expect(serve).toContain(`reconcile interval (default ${durationText(fleetDefaults.reconcileEveryMs)})`);
    expect(serve).toContain(`check interval (default ${durationText(fleetDefaults.monitorEveryMs)})`);
    expect(await help("fleet", "run")).toContain(
      `between steps (default ${durationText(fleetDefaults.runEveryMs)})`,
    );
  });
});

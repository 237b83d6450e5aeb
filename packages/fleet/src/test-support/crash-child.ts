// A manager process for the crash test: it deploys two offers and drives each instance to a
// final state, with a scripted agent calling the handlers. With CRASH_AT=N it SIGKILLs
// itself at its N-th checkpoint; a restart with CRASH_AT=0 must then finish the job from the
// store and Vast alone. Prints `renting-after-startup <n>` once its startup (one reconcile)
// is done, `n` being the renting rows without a Vast id left from before, and
// `checkpoints <count>` when it finishes.
import { createVastClient } from "@cuzkit/vast";
import { timedProofRecords } from "../evidence/benchmark-claim.js";
import { createFleetManager } from "../manager/fleet-manager.js";
import { openFleetStore } from "../store/open-fleet-store.js";

const env = process.env;
const crashAt = Number(env.CRASH_AT ?? "0");
let checkpoints = 0;
const store = openFleetStore({ path: env.FLEET_DB as string });
const vast = createVastClient({
  apiKey: env.FAKE_VAST_KEY as string,
  baseUrl: env.FAKE_VAST_URL as string,
  rateLimit: false,
  retry: { retries: 2, minDelayMs: 5, maxDelayMs: 20 },
  createRecovery: { attempts: 2, delayMs: 20 },
});
const manager = createFleetManager({
  store,
  vast,
  config: {
    fleet: "crash",
    image: "ghcr.io/example/prover:1",
    managerUrl: "http://127.0.0.1:1",
    allowLoopbackManagerUrl: true,
    minProofsPerHour: 40,
    unknownGraceMs: 0,
    // A create sent just before a crash is found by label; a row whose create was never sent is
    // closed by the restart's first reconcile, long before this deadline (the test would hang).
    deadlines: { overridesMs: { renting: 600_000 } },
  },
  checkpoint(name) {
    checkpoints++;
    if (checkpoints === crashAt) {
      process.stdout.write(`crash at ${checkpoints} ${name}\n`);
      process.kill(process.pid, "SIGKILL");
    }
  },
});

const offers = [1002, 1003];
const verdictFor = (offerId: number) => (offerId === 1002 ? "MET" : "BELOW");

const startedAt = Date.now();

async function main(): Promise<void> {
  await manager.startup();
  const leftRenting = (await store.list(["renting"])).filter(
    (r) => r.vastId === undefined && r.phaseStartedAt < startedAt,
  );
  process.stdout.write(`renting-after-startup ${leftRenting.length}\n`);
  // Deploy each offer once: a row for it means it was planned before (crashed or not).
  for (const offerId of offers) {
    if (!(await store.list()).some((r) => r.offerId === offerId)) await manager.deploy(offerId);
  }
  for (let round = 0; round < 200; round++) {
    const live = (await store.list()).filter((r) => r.state !== "destroyed");
    if (live.length === 0) break;
    for (const record of live) {
      // The scripted agent: it resumes where the store says the instance is, as a real one retries.
      switch (record.state) {
        case "booting":
          await manager.agent.register(record.id, { agentVersion: "crash-test" });
          break;
        case "registered":
          await manager.agent.phase(record.id, { phase: "params" });
          break;
        case "params":
          await manager.agent.phase(record.id, { phase: "warmup", tunedConfig: "[synthesis]\n" });
          break;
        case "warmup":
          await manager.agent.phase(record.id, { phase: "benchmarking" });
          break;
        case "benchmarking":
          await manager.agent.report(record.id, {
            verdict: verdictFor(record.offerId),
            proofsPerHour: verdictFor(record.offerId) === "MET" ? 48 : 30,
            proofs: timedProofRecords({ count: 12, wallMs: 75_000 }),
          });
          break;
        case "active":
          await manager.destroy(record.id); // the operator ends the run
          break;
        default:
          break;
      }
    }
    await manager.monitor();
    await manager.reconcile();
    await new Promise((resolve) => setTimeout(resolve, 30));
  }
  process.stdout.write(`checkpoints ${checkpoints}\n`);
  await store.close();
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack}\n`);
  process.exit(1);
});

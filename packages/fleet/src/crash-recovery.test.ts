import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { type FakeVastServer, startFakeVastServer } from "@cuzkit/vast/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { bundleSources } from "../../../test/support/cli-bundle.js";
import { cuzkitArgv, repoRoot } from "../../../test/support/cuzkit-process.js";
import { openFleetStore } from "./store/open-fleet-store.js";

// The manager is SIGKILLed at each of its checkpoints through a deploy of two offers (one
// kept then destroyed, one rejected), then restarted. After every crash point: never two
// rentals for one instance, never a billed instance without a row, every instance final, no
// renting row left after the restart's first reconcile, and no machine blamed for the crash.

const childSource = join(repoRoot, "packages/fleet/src/test-support/crash-child.ts");
let childDir = "";
let child = "";

// The child is bundled once (as the tests' `cuzkit` is: test/support/cli-bundle.ts): about 60
// manager starts then cost a node start each instead of a TypeScript load through tsx (a second
// or more apiece on a loaded machine).
beforeAll(async () => {
  childDir = mkdtempSync(join(tmpdir(), "cuzkit-crash-child-"));
  child = join(childDir, "crash-child.mjs");
  await bundleSources(relative(repoRoot, childSource), child);
});
afterAll(() => rmSync(childDir, { recursive: true, force: true }));

const createPath = /^\/api\/v0\/asks\/\d+\/$/;

function runManager(fake: FakeVastServer, db: string, crashAt: number) {
  const [node] = cuzkitArgv();
  return new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>(
    (resolve) => {
      const proc = spawn(node, [child], {
        env: {
          ...process.env,
          FLEET_DB: db,
          FAKE_VAST_URL: fake.url,
          FAKE_VAST_KEY: fake.apiKey,
          CRASH_AT: String(crashAt),
        },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stdout = "";
      let stderr = "";
      proc.stdout.on("data", (chunk: Buffer) => {
        stdout += chunk.toString();
      });
      proc.stderr.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      proc.once("exit", (code, signal) => resolve({ code, signal, stdout, stderr }));
    },
  );
}

let fake: FakeVastServer | undefined;
const dirs: string[] = [];
async function closeFake(): Promise<void> {
  await fake?.close();
  fake = undefined;
}
afterEach(async () => {
  await closeFake();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function scenario(crashAt: number) {
  fake = await startFakeVastServer({ rateLimits: false }); // the clients here do not pace
  const dir = mkdtempSync(join(tmpdir(), "cuzkit-crash-"));
  dirs.push(dir);
  const db = join(dir, "fleet.db");
  const first = await runManager(fake, db, crashAt);
  const runs = [first];
  // Restart until it finishes (a crash run ends killed; the restart must complete).
  if (first.signal === "SIGKILL") runs.push(await runManager(fake, db, 0));
  const last = runs.at(-1);
  expect(last?.code, `${last?.stdout}\n${last?.stderr}`).toBe(0);
  // No vetting slot is held past one reconcile: the restart's startup resolved every renting
  // row the crash left (adopted by its label, or closed), not its renting deadline (10 min).
  expect(/renting-after-startup (\d+)/.exec(last?.stdout ?? "")?.[1], `crash point ${crashAt}`).toBe("0");

  const store = openFleetStore({ path: db });
  try {
    const rows = await store.list();
    const creates = fake.requestsTo(createPath, "PUT");
    // Never two rentals for one planned instance.
    const labels = creates.map((r) => (r.body as { label: string }).label);
    expect(new Set(labels).size).toBe(labels.length);
    // Never a billed instance without a row: every create carried a label the store knows.
    for (const label of labels)
      expect(
        rows.some((r) => r.label === label),
        label,
      ).toBe(true);
    // Every instance reached a final state, and nothing is left billing.
    expect(rows.map((r) => r.state).filter((s) => s !== "destroyed")).toEqual([]);
    expect(fake.instances.size).toBe(0);
    // Each offer rented at most once, whatever the crash (a crash after `renting` was committed
    // but before the create went out leaves it unrented: closed by the restart's reconcile, never resent).
    const paths = creates.map((r) => r.path);
    expect(new Set(paths).size, `crash point ${crashAt}`).toBe(paths.length);
    if (crashAt === 0) expect(paths.sort()).toEqual(["/api/v0/asks/1002/", "/api/v0/asks/1003/"]);
    // A crash is the manager's fault: no machine is excluded for it.
    expect(await store.isMachineExcluded(502), `crash point ${crashAt}`).toBe(false);
    expect(await store.isMachineExcluded(503), `crash point ${crashAt}`).toBe(false);
    return { first, rows };
  } finally {
    await store.close();
  }
}

describe("the manager killed at every checkpoint of a deploy", { timeout: 600_000 }, () => {
  it("recovers from each of at least 30 crash points", async () => {
    const clean = await scenario(0);
    const total = Number(/checkpoints (\d+)/.exec(clean.first.stdout)?.[1]);
    expect(total).toBeGreaterThanOrEqual(30);
    await closeFake();
    const crashed: string[] = [];
    for (let crashAt = 1; crashAt <= total; crashAt++) {
      const { first } = await scenario(crashAt);
      expect(first.signal, `crash point ${crashAt}`).toBe("SIGKILL");
      crashed.push(/crash at \d+ (\S+)/.exec(first.stdout)?.[1] ?? "?");
      await closeFake();
    }
    expect(crashed).toHaveLength(total);
    // The points span the whole flow.
    for (const point of [
      "deploy:planned",
      "deploy:renting",
      "deploy:created",
      "agent:decided",
      "destroy:before-call",
    ]) {
      expect(crashed).toContain(point);
    }
  });
});

import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { startFakeVastServer } from "@cuzkit/vast/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cuzkitArgv } from "../../../../test/support/cuzkit-process.js";
import { openPostgresFleetStore } from "../store/postgres-fleet-store.js";
import { startTestPostgres, type TestPostgres } from "../test-support/test-postgres.js";

// Two `cuzkit fleet run` replicas on one PostgreSQL store: one leads (rents), the other
// follows (serves reads, refuses writes). The leader is SIGKILLed right after its rental, or
// frozen (SIGSTOP); the follower takes the writer lease once it lapses (within two lease
// periods), and its next steps see the rental in the store: Vast sees one rental in all. A
// frozen leader, resumed, writes nothing: its epoch is no longer the lease's.

const createPath = /^\/api\/v0\/asks\/\d+\/$/;

/** A replica: its output lines, as they come, and a way to wait for one. */
interface Replica {
  child: ChildProcess;
  lines: string[];
  output(): string;
  waitFor(pattern: RegExp): Promise<RegExpExecArray>;
}

function startReplica(args: string[], env: NodeJS.ProcessEnv): Replica {
  const [node, base] = cuzkitArgv();
  const child = spawn(node, [...base, "fleet", "run", ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
  const lines: string[] = [];
  const waiters: { pattern: RegExp; resolve: (m: RegExpExecArray) => void }[] = [];
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on("line", (line) => {
    lines.push(line);
    for (const w of [...waiters]) {
      const match = w.pattern.exec(line);
      if (match) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(match);
      }
    }
  });
  const output = () => `stdout:\n${lines.join("\n")}\nstderr:\n${stderr}`;
  return {
    child,
    lines,
    output,
    waitFor(pattern) {
      for (const line of lines) {
        const match = pattern.exec(line);
        if (match) return Promise.resolve(match);
      }
      return new Promise((resolve, reject) => {
        waiters.push({ pattern, resolve });
        child.once("exit", (code, signal) =>
          reject(new Error(`replica exited (${code ?? signal}) before ${pattern}\n${output()}`)),
        );
      });
    },
  };
}

async function stopReplica(replica: Replica | undefined): Promise<void> {
  const child = replica?.child;
  if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
  child.kill("SIGKILL");
  await once(child, "exit");
}

/** Resolves once the fake has answered `request` (woken by each request), failing after 60 s with `what`. */
async function until(request: Promise<void>, what: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), 60_000);
  });
  try {
    await Promise.race([request, late]);
  } finally {
    clearTimeout(timer);
  }
}

let postgres: TestPostgres;
beforeAll(async () => {
  postgres = await startTestPostgres();
});
afterAll(async () => {
  await postgres?.stop();
});

describe("fleet replicas on one PostgreSQL store", { timeout: 120_000 }, () => {
  it("lets one replica act; when it is killed, the other takes over without renting twice", async () => {
    const fake = await startFakeVastServer({ rateLimits: false }); // pacing is the client's job
    const home = mkdtempSync(join(tmpdir(), "cuzkit-replicas-"));
    const schema = postgres.freshSchema("replicas");
    const env = { ...process.env, HOME: home, XDG_STATE_HOME: home, VAST_API_KEY: fake.apiKey };
    const args = [
      ...["--db", postgres.url, "--db-schema", schema, "--url", fake.url, "--fleet", "rep"],
      ...["--min-proofs-per-hour", "40", "--image", "ghcr.io/example/prover:1"],
      ...[
        "--manager-url",
        "http://127.0.0.1:1",
        "--allow-loopback-manager-url",
        "--listen",
        "127.0.0.1:0",
        "--admin-token",
        "a".repeat(32),
      ],
      ...[
        "--target-instances",
        "1",
        "--every",
        "200ms",
        "--lease-check-every",
        "100ms",
        "--lease-period",
        "1s",
      ],
    ];
    let a: Replica | undefined;
    let b: Replica | undefined;
    try {
      a = startReplica(args, env);
      await a.waitFor(/^leading$/);
      const rented = await a.waitFor(/^rent offer (\d+):/);
      b = startReplica(args, env);
      const [, bUrl] = (await b.waitFor(/^listening (\S+)/)) as unknown as [string, string];
      await b.waitFor(/^following/);
      await until(fake.whenRequested(createPath, { method: "PUT" }), "the leader's rental");

      // The follower serves reads and refuses writes while the leader lives.
      const summary = await fetch(`${bUrl}/api/summary`);
      expect(summary.status).toBe(200);
      const refused = await fetch(`${bUrl}/api/deploy`, {
        method: "POST",
        headers: { authorization: `Bearer ${"a".repeat(32)}`, "content-type": "application/json" },
        body: JSON.stringify({ offerId: Number(rented[1]) }),
      });
      expect(refused.status).toBe(503);
      expect(await refused.json()).toMatchObject({ error: "FLEET_NOT_LEADER" });
      expect(b.lines).not.toContain("leading");

      a.child.kill("SIGKILL");
      await once(a.child, "exit");
      await b.waitFor(/^leading$/);
      // Two full run steps of the new leader (each starts with an offer search, one at a time).
      const atTakeover = fake.requestsTo("/api/v0/bundles/", "POST").length;
      await until(
        fake.whenRequested("/api/v0/bundles/", { method: "POST", count: atTakeover + 2 }),
        "two steps of the new leader",
      );

      // One rental in all: the new leader found the dead one's instance in the store.
      expect(fake.requestsTo(createPath, "PUT"), b.output()).toHaveLength(1);
      const store = await openPostgresFleetStore({ url: postgres.url, schema });
      try {
        const rows = await store.list();
        expect(rows).toHaveLength(1);
        expect(rows[0]?.offerId).toBe(Number(rented[1]));
      } finally {
        await store.close();
      }
    } finally {
      await stopReplica(a);
      await stopReplica(b);
      await fake.close();
      rmSync(home, { recursive: true, force: true });
    }
  });

  it("replaces a frozen (SIGSTOPped) leader within two lease periods; resumed, it writes nothing", async () => {
    const fake = await startFakeVastServer({ rateLimits: false });
    const home = mkdtempSync(join(tmpdir(), "cuzkit-replicas-"));
    const schema = postgres.freshSchema("frozen");
    const env = { ...process.env, HOME: home, XDG_STATE_HOME: home, VAST_API_KEY: fake.apiKey };
    const leasePeriodMs = 2_000;
    const args = [
      ...["--db", postgres.url, "--db-schema", schema, "--url", fake.url, "--fleet", "frz"],
      ...["--min-proofs-per-hour", "40", "--image", "ghcr.io/example/prover:1"],
      ...[
        "--manager-url",
        "http://127.0.0.1:1",
        "--allow-loopback-manager-url",
        "--listen",
        "127.0.0.1:0",
        "--admin-token",
        "a".repeat(32),
      ],
      ...["--target-instances", "1", "--every", "200ms", "--lease-check-every", "100ms"],
      ...["--lease-period", `${leasePeriodMs}ms`],
    ];
    const lease = async () =>
      (
        await postgres.query<{ holder: string; epoch: number }>(
          `SELECT holder, epoch::int AS epoch FROM ${schema}.writer_lease WHERE fleet = 'frz'`,
        )
      )[0];
    let a: Replica | undefined;
    let b: Replica | undefined;
    try {
      a = startReplica(args, env);
      const [, aUrl] = (await a.waitFor(/^listening (\S+)/)) as unknown as [string, string];
      await a.waitFor(/^leading$/);
      await a.waitFor(/^rent offer (\d+):/);
      await until(fake.whenRequested(createPath, { method: "PUT" }), "the leader's rental");
      b = startReplica(args, env);
      await b.waitFor(/^following/);
      const before = await lease();
      expect(before?.holder).toContain(`pid ${a.child.pid}`);

      const frozenAt = performance.now();
      a.child.kill("SIGSTOP");
      await b.waitFor(/^leading$/);
      const takeoverMs = performance.now() - frozenAt;
      expect(takeoverMs, b.output()).toBeLessThan(2 * leasePeriodMs);
      const after = await lease();
      expect(after?.holder).toContain(`pid ${b.child.pid}`);
      expect(after?.epoch).toBe((before?.epoch ?? 0) + 1);

      // The frozen leader resumes, and an agent reaches it at once: refused, nothing written.
      const [instance] = await postgres.query<{ id: string }>(`SELECT id FROM ${schema}.instances`);
      const id = instance?.id as string;
      const createBody = fake.requestsTo(createPath, "PUT")[0]?.body as { env?: Record<string, string> };
      const token = createBody?.env?.CUZKIT_FLEET_TOKEN as string;
      a.child.kill("SIGCONT");
      const refused = await fetch(`${aUrl}/v1/agent/${id}/register`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ agentVersion: "test" }),
      }).catch((error: unknown) => {
        throw new Error(`${String(error)}\n${a?.output()}`);
      });
      expect(refused.status).toBe(503);
      expect(refused.headers.get("retry-after")).toBe("5");
      expect(((await refused.json()) as { error: string }).error).toMatch(/^FLEET_(NOT_LEADER|LEASE_LOST)$/);
      // It notices, stops acting and follows; meanwhile every write it tried was fenced.
      await a.waitFor(/^following$/);
      const atTakeover = fake.requestsTo("/api/v0/bundles/", "POST").length;
      await until(
        fake.whenRequested("/api/v0/bundles/", { method: "POST", count: atTakeover + 2 }),
        "two steps of the new leader",
      );
      const events = await postgres.query<{ seq: number; writer_epoch: number | null; type: string }>(
        `SELECT seq::int AS seq, writer_epoch::int AS writer_epoch, type FROM ${schema}.events ORDER BY seq`,
      );
      const firstOfNew = events.find((e) => e.writer_epoch === after?.epoch)?.seq ?? Number.POSITIVE_INFINITY;
      const oldAfterTakeover = events.filter((e) => e.writer_epoch === before?.epoch && e.seq > firstOfNew);
      expect(oldAfterTakeover, JSON.stringify(events)).toEqual([]);
      expect(events.some((e) => e.type === "registered")).toBe(false);
      const [row] = await postgres.query<{ state: string }>(`SELECT state FROM ${schema}.instances`);
      expect(row?.state).toBe("booting");
      expect(fake.requestsTo(createPath, "PUT"), b.output()).toHaveLength(1);
    } finally {
      if (a?.child.exitCode === null) a.child.kill("SIGCONT");
      await stopReplica(a);
      await stopReplica(b);
      await fake.close();
      rmSync(home, { recursive: true, force: true });
    }
  });
});

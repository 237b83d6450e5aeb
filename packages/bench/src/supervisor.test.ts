import { readFile } from "node:fs/promises";
import type { Sleep } from "@cuzkit/core";
import { createManualClock } from "@cuzkit/core/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  createDaemonSupervisor,
  type DaemonExit,
  DaemonStartError,
  type DaemonSupervisor,
} from "./supervisor.js";

// Stand-in daemons: node one-liners that print, wait, or exit the way a real daemon would.
const node = JSON.stringify(process.execPath);
const ready = async () => undefined;
let supervisor: DaemonSupervisor | undefined;

/** Resolves with the first truthy value of `probe`, polled on the event loop (the child's output arrives asynchronously). */
async function until<T>(probe: () => T | undefined): Promise<T> {
  for (;;) {
    const value = probe();
    if (value) return value;
    await new Promise((resolve) => setImmediate(resolve));
  }
}
afterEach(async () => {
  await supervisor?.stop();
  supervisor = undefined;
});

describe("createDaemonSupervisor", () => {
  it("writes the config, substitutes {config} and {addr}, and stops the daemon with SIGTERM", async () => {
    const script =
      "console.log('config', process.argv[1], 'addr', process.argv[2]); setInterval(() => {}, 1000)";
    supervisor = createDaemonSupervisor({
      command: `${node} -e ${JSON.stringify(script)} {config} {addr}`,
      address: "127.0.0.1:9820",
      waitForReady: ready,
    });
    await supervisor.start("[gpus]\ngpu_workers_per_device = 1\n", "full");
    expect(supervisor.running).toBe(true);
    const started = supervisor;
    const line = await until(() => started.logTail().find((l) => l.startsWith("config ")));
    const [, configPath, , addr] = (line ?? "").split(" ");
    expect(addr).toBe("127.0.0.1:9820");
    expect(await readFile(configPath ?? "", "utf8")).toBe("[gpus]\ngpu_workers_per_device = 1\n");
    const exit = await supervisor.stop();
    expect(exit).toMatchObject({ expected: true, likelyOom: false });
    expect(supervisor.crashes).toEqual([]);
  });

  it("reports an exit it did not ask for; exit 137 reads as a likely OOM kill", async () => {
    supervisor = createDaemonSupervisor({
      command: `${node} -e ${JSON.stringify("console.error('oom-kill: out of memory'); setTimeout(() => process.exit(137), 100)")} {config} {addr}`,
      address: "127.0.0.1:9820",
      waitForReady: ready,
    });
    const crashed = new Promise<DaemonExit>((resolve) => supervisor?.onCrash(resolve));
    await supervisor.start("", "full");
    const exit = await crashed;
    expect(exit).toMatchObject({ exitCode: 137, expected: false, likelyOom: true });
    expect(exit.explanation).toMatch(/OOM killer/);
    expect(exit.logTail).toContain("oom-kill: out of memory");
    expect(supervisor.running).toBe(false);
  });

  it("fails the start with the daemon's last lines when it exits while starting", async () => {
    supervisor = createDaemonSupervisor({
      command: `${node} -e ${JSON.stringify("console.error('invalid listen address'); process.exit(3)")} {config} {addr}`,
      address: "127.0.0.1:9820",
      // A daemon that never answers: only its exit can end the start.
      waitForReady: (signal) =>
        new Promise((_resolve, reject) => signal.addEventListener("abort", () => reject(signal.reason))),
    });
    const error = await supervisor.start("", "full").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DaemonStartError);
    expect((error as DaemonStartError).message).toMatch(/exited while starting: exited with code 3/);
    expect((error as DaemonStartError).hint).toContain("invalid listen address");
  });

  it("says a command that does not exist was not found (exit 127), not just 'exited with code 127'", async () => {
    supervisor = createDaemonSupervisor({
      command: "/nonexistent/cuzk-daemon",
      address: "127.0.0.1:9",
      waitForReady: (signal) =>
        new Promise((_resolve, reject) => signal.addEventListener("abort", () => reject(signal.reason))),
    });
    const error = await supervisor.start("", "full").catch((e: unknown) => e);
    expect((error as DaemonStartError).message).toMatch(
      /exited with code 127: the command was not found \(check --spawn\)/,
    );
  });

  it("stops a daemon that did not become ready, and says so", async () => {
    supervisor = createDaemonSupervisor({
      command: `${node} -e "setInterval(() => {}, 1000)" -- `,
      address: "127.0.0.1:9820",
      waitForReady: async () => {
        throw new Error("timed out");
      },
    });
    await expect(supervisor.start("", "full")).rejects.toThrow(/did not become ready/);
    expect(supervisor.running).toBe(false);
  });
});

describe("createDaemonSupervisor knows its daemon", () => {
  it("refuses to start when something already answers at the address", async () => {
    const { startSimDaemon } = await import("@cuzkit/sim");
    const { mkdtemp, rm } = await import("node:fs/promises");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    const dir = await mkdtemp(join(tmpdir(), "cuzkit-sup-"));
    const other = await startSimDaemon({ listen: `unix://${join(dir, "cuzk.sock")}`, proofTimeMs: 5 });
    try {
      supervisor = createDaemonSupervisor({
        command: `${node} -e "setInterval(() => {}, 1000)" -- `,
        address: other.address,
        waitForReady: ready,
      });
      const error = await supervisor.start("", "full").catch((e: unknown) => e);
      expect(error).toMatchObject({ code: "ADDRESS_IN_USE" });
      expect((error as DaemonStartError).hint).toMatch(/stop the other daemon/);
      expect(supervisor.starts).toBe(0);
    } finally {
      await other.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("refuses a daemon that has been up longer than the child it started, and stops the child", async () => {
    supervisor = createDaemonSupervisor({
      command: `${node} -e "setInterval(() => {}, 1000)" -- `,
      address: "127.0.0.1:9",
      waitForReady: async () => ({ uptimeSeconds: 3_600 }),
    });
    const error = await supervisor.start("", "full").catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "DAEMON_NOT_OURS" });
    expect((error as DaemonStartError).message).toMatch(/has been up 3600 s, but ours started 0 s ago/);
    expect(supervisor.running).toBe(false);
  });

  it("takes its own daemon for its own when the system clock steps back 90 s while it starts", async () => {
    // The uptime check compares the daemon's uptime with the time since the spawn: read on
    // Date.now, a step back would make "ours started -90 s ago" and refuse our own child.
    let wallMs = Date.now();
    vi.spyOn(Date, "now").mockImplementation(() => wallMs);
    supervisor = createDaemonSupervisor({
      command: `${node} -e "setInterval(() => {}, 1000)" -- `,
      address: "127.0.0.1:9",
      waitForReady: async () => {
        wallMs -= 90_000;
        return { uptimeSeconds: 1 };
      },
    });
    try {
      await supervisor.start("", "full");
      expect(supervisor.running).toBe(true);
    } finally {
      vi.restoreAllMocks();
    }
  });

  it("reports a kill of a frozen daemon as a crash with the reason, not as an OOM", async () => {
    supervisor = createDaemonSupervisor({
      command: `${node} -e "setInterval(() => {}, 1000)" -- `,
      address: "127.0.0.1:9",
      waitForReady: ready,
    });
    const crashed = new Promise<DaemonExit>((resolve) => supervisor?.onCrash(resolve));
    await supervisor.start("", "full");
    await supervisor.kill("the daemon froze: no answer for 30 s; killed by the benchmark");
    expect(await crashed).toMatchObject({
      frozen: true,
      likelyOom: false,
      explanation: "the daemon froze: no answer for 30 s; killed by the benchmark",
    });
    expect(supervisor.crashes).toHaveLength(1);
  });
});

describe("createDaemonSupervisor on an injected clock and sleep", () => {
  it("waits its stop grace period on the injected sleep, then SIGKILLs a daemon that ignores SIGTERM", async () => {
    const clock = createManualClock(1_000);
    const graceWaits: { ms: number; end: () => void; signal: AbortSignal | undefined }[] = [];
    const sleep: Sleep = (ms, signal) => {
      if (ms !== 60_000) return clock.sleep(ms, signal); // process-group polls pass at once
      return new Promise<void>((resolve, reject) => {
        graceWaits.push({ ms, end: resolve, signal });
        signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
      });
    };
    const script =
      "process.on('SIGTERM', () => console.log('ignored SIGTERM')); console.log('up'); setInterval(() => {}, 1000)";
    supervisor = createDaemonSupervisor({
      command: `exec ${node} -e ${JSON.stringify(script)} -- `,
      address: "127.0.0.1:9",
      waitForReady: ready,
      stopGraceMs: 60_000,
      clock,
      sleep,
    });
    await supervisor.start("", "full");
    const started = supervisor;
    await until(() => started.logTail().includes("up"));
    clock.advance(5_000);
    const stopping = supervisor.stop();
    await until(() => started.logTail().includes("ignored SIGTERM"));
    // The daemon outlived SIGTERM: nothing more happens until the grace wait ends.
    expect(graceWaits.map((w) => w.ms)).toEqual([60_000]);
    expect(supervisor.running).toBe(true);
    graceWaits[0]?.end();
    const exit = await stopping;
    expect(exit).toMatchObject({ signal: "SIGKILL", expected: true, atMs: 5_000 });
    expect(supervisor.running).toBe(false);
  });

  it("ends the grace wait when the daemon stops in time (no SIGKILL, no timer left behind)", async () => {
    const aborted: boolean[] = [];
    const sleep: Sleep = (_ms, signal) =>
      new Promise<void>((_resolve, reject) => {
        signal?.addEventListener(
          "abort",
          () => {
            aborted.push(true);
            reject(signal.reason);
          },
          { once: true },
        );
      });
    supervisor = createDaemonSupervisor({
      command: `exec ${node} -e ${JSON.stringify("console.log('up'); setInterval(() => {}, 1000)")} -- `,
      address: "127.0.0.1:9",
      waitForReady: ready,
      sleep,
    });
    await supervisor.start("", "full");
    const started = supervisor;
    await until(() => started.logTail().includes("up"));
    const exit = await supervisor.stop();
    expect(exit).toMatchObject({ signal: "SIGTERM", expected: true });
    expect(aborted).toEqual([true]);
  });
});

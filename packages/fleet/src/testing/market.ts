import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { vastMemoryToBytes } from "@cuzkit/vast";
import type { FakeVastServer } from "@cuzkit/vast/testing";
import { cuzkitArgv, cuzkitShellCommand } from "../../../../test/support/cuzkit-process.js";

/** How the machine behind one offer behaves once rented. */
export interface MachineBehaviour {
  /** Extra `cuzkit sim` flags, such as `--memory-limit 60GiB` (the container gets less than the offer says). */
  simFlags?: string | undefined;
  /** The agent's --params-command. Default "true". */
  paramsCommand?: string | undefined;
}

/** One rented instance the market started an agent for. */
export interface MarketMachine {
  vastId: number;
  instanceId: string;
  offerId: number;
  agent: ChildProcess;
  /** Everything the agent printed. */
  output: string[];
  exited: Promise<number | null>;
}

/** A test market: every instance the fake Vast creates becomes a local `cuzkit agent` process. */
export interface Market {
  machines: Map<number, MarketMachine>;
  /** Resolves once the fake holds an instance for `instanceId` with a running agent. */
  machineFor(instanceId: string): Promise<MarketMachine>;
  /** Freezes an agent (SIGSTOP): it stops heartbeating, as a hung machine. */
  freeze(vastId: number): void;
  /** Kills an agent and its daemon as Vast would on destroy or exit. */
  kill(vastId: number): void;
  close(): Promise<void>;
}

/** Starts the market: it polls the fake for new instances, starts their agents, and kills those Vast no longer has. */
export function startMarket(fake: FakeVastServer, behaviours: Record<number, MachineBehaviour> = {}): Market {
  const dir = mkdtempSync(join(tmpdir(), "cuzkit-market-"));
  const machines = new Map<number, MarketMachine>();
  const waiters: { instanceId: string; resolve: (m: MarketMachine) => void }[] = [];
  const [node, base] = cuzkitArgv();

  function startAgent(vastId: number, record: Record<string, unknown>): void {
    const create = fake
      .requestsTo(/^\/api\/v0\/asks\/\d+\/$/, "PUT")
      .find((r) => (r.body as { label?: string }).label === record.label);
    const env = (create?.body as { env?: Record<string, string> } | undefined)?.env ?? {};
    const offerId = Number(/\/asks\/(\d+)\//.exec(create?.path ?? "")?.[1]);
    const behaviour = behaviours[offerId] ?? {};
    const ramGiB = Math.floor(vastMemoryToBytes(record.cpu_ram as number) / 2 ** 30);
    const cores = Math.floor((record.cpu_cores_effective as number | undefined) ?? 32);
    const gpus = `${record.num_gpus as number}x${String(record.gpu_name).replace(/\s+/g, "")}`;
    const machine = `--ram ${ramGiB}GiB --cores ${cores} --gpus ${gpus}`;
    const socket = `unix://${join(dir, `${vastId}.sock`)}`;
    const sim = `${cuzkitShellCommand()} sim ${machine} --time-scale 0.0003 --pce-cached ${behaviour.simFlags ?? ""}`;
    const args = [
      ...base,
      "agent",
      "--synthetic",
      "--spawn",
      sim,
      "--addr",
      socket,
      "--params-command",
      behaviour.paramsCommand ?? "true",
      "--ready-timeout",
      "30s",
      ...machine.split(" "),
    ];
    const agent = spawn(node, args, {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true, // its own process group: the daemon it spawns dies with it
    });
    const output: string[] = [];
    agent.stdout?.on("data", (chunk: Buffer) => output.push(chunk.toString()));
    agent.stderr?.on("data", (chunk: Buffer) => output.push(chunk.toString()));
    const exited = new Promise<number | null>((resolve) => agent.once("exit", (code) => resolve(code)));
    const entry: MarketMachine = {
      vastId,
      instanceId: env.CUZKIT_INSTANCE_ID ?? "",
      offerId,
      agent,
      output,
      exited,
    };
    machines.set(vastId, entry);
    for (const waiter of waiters.filter((w) => w.instanceId === entry.instanceId)) waiter.resolve(entry);
  }

  const killGroup = (machine: MarketMachine, signal: NodeJS.Signals) => {
    if (
      machine.agent.pid === undefined ||
      machine.agent.exitCode !== null ||
      machine.agent.signalCode !== null
    )
      return;
    try {
      process.kill(-machine.agent.pid, signal);
    } catch {
      // already gone
    }
  };

  const timer = setInterval(() => {
    for (const [vastId, record] of fake.instances) {
      if (!machines.has(vastId) && typeof record.label === "string") startAgent(vastId, record);
    }
    for (const [vastId, machine] of machines) {
      if (!fake.instances.has(vastId)) {
        killGroup(machine, "SIGCONT");
        killGroup(machine, "SIGKILL");
      }
    }
  }, 50);

  return {
    machines,
    machineFor(instanceId) {
      const found = [...machines.values()].find((m) => m.instanceId === instanceId);
      if (found) return Promise.resolve(found);
      return new Promise((resolve) => waiters.push({ instanceId, resolve }));
    },
    freeze(vastId) {
      const machine = machines.get(vastId);
      if (machine) killGroup(machine, "SIGSTOP");
    },
    kill(vastId) {
      const machine = machines.get(vastId);
      if (machine) {
        killGroup(machine, "SIGCONT");
        killGroup(machine, "SIGKILL");
      }
    },
    async close() {
      clearInterval(timer);
      for (const machine of machines.values()) {
        killGroup(machine, "SIGCONT");
        killGroup(machine, "SIGKILL");
      }
      await Promise.all([...machines.values()].map((m) => m.exited));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type CuzkClient, createCuzkClient, type SubmitProofInput } from "@cuzkit/client";
import { hardwareFrom } from "@cuzkit/core";
import { recommend } from "@cuzkit/tuner";
import { vastMemoryToBytes } from "@cuzkit/vast";
import type { FakeVastServer } from "@cuzkit/vast/testing";
import { descendantPids, signalEach } from "./process-tree.js";

/** How the machine behind one offer behaves once rented. */
export interface MachineBehaviour {
  /** Extra `cuzkit sim` flags, such as `--memory-limit 60GiB` (the container gets less than the offer says). */
  simFlags?: string | undefined;
  /** The agent's --params-command. Default "true". */
  paramsCommand?: string | undefined;
  /**
   * The machine's true speed over the model's (slow memory 0.55, a weak CPU 0.45): its sim runs
   * each modelled second 1/speed times as long, so the agent measures the truth. Default 1.
   */
  speed?: number | undefined;
  /** Real ms after its agent starts at which the host dies: Vast reports the instance exited. Default never. */
  diesAfterMs?: number | undefined;
}

/** How the market runs the `cuzkit` command: a program and the arguments before the subcommand. */
export interface CuzkitCommand {
  command: string;
  args: readonly string[];
}

/** Work the market sends a kept machine, as Curio would. */
export interface MarketProduction {
  /** The proof request submitted (a synthetic PoRep for the simulator). Required. */
  request: SubmitProofInput;
}

/** Options of {@link startMarket}. */
export interface MarketOptions {
  /** How to run `cuzkit` (agents and their sims). Required. */
  cuzkit: CuzkitCommand;
  /** Behaviour per offer id. Default: every machine as the model says. */
  behaviours?: Record<number, MachineBehaviour> | undefined;
  /** The sims' time scale (real seconds per modelled second); agents report in modelled time. Default 0.0003. */
  timeScale?: number | undefined;
  /** The agents' --throughput-every, real ms. Default: the agent's (30 min). */
  throughputEveryMs?: number | undefined;
  /** Once a machine is kept, keep its daemon busy with this work (the tuner's concurrency in flight). Default: no work. */
  production?: MarketProduction | undefined;
  /** The agents' --ready-timeout, real ms. Default 30 s. */
  readyTimeoutMs?: number | undefined;
}

/** One rented instance the market started an agent for. */
export interface MarketMachine {
  vastId: number;
  instanceId: string;
  offerId: number;
  /** The offer's price, $/hour. */
  dphTotal: number;
  agent: ChildProcess;
  /** Everything the agent printed. */
  output: string[];
  exited: Promise<number | null>;
  /** When the agent started and (once Vast no longer has the instance) when it went, epoch ms. */
  startedAt: number;
  goneAt: number | undefined;
  /** Set when the host died by its behaviour. */
  diedAt: number | undefined;
  /** True once its offer is listed again. */
  returned: boolean;
  /** Production proofs its daemon completed for the market (the market's own count, not the fleet's). */
  completedProofs: number;
  /** When the market began sending it work, epoch ms. */
  servingSince: number | undefined;
  /** When its first and latest production proofs completed, epoch ms. */
  firstCompletedAt: number | undefined;
  lastCompletedAt: number | undefined;
  /** Every process seen below the agent (its daemon runs in a group of its own), to kill with the machine. */
  processes: Set<number>;
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
  /** Real ms each machine has been billed: from its start to when Vast let it go (or `now`). */
  billedMs(machine: MarketMachine, now?: number): number;
  close(): Promise<void>;
}

const quote = (part: string) => JSON.stringify(part);

/** The market's own state: its machines, what waits on them, their loads and timers. */
interface MarketState {
  fake: FakeVastServer;
  options: MarketOptions;
  /** Where sockets and serving files go. */
  dir: string;
  machines: Map<number, MarketMachine>;
  waiters: { instanceId: string; resolve: (m: MarketMachine) => void }[];
  timeScale: number;
  behaviours: Record<number, MachineBehaviour>;
  /** The `cuzkit` command as a shell line, for the agents' --spawn. */
  cuzkitShell: string;
  loads: Map<number, { abort: AbortController; client: CuzkClient; done: Promise<void> }>;
  deathTimers: Set<NodeJS.Timeout>;
  /** Machines whose serve command has not run yet: where it will say so, and what the load needs. */
  pendingWork: Map<number, PendingWork>;
  /** Poll ticks so far. */
  ticks: number;
}

/** What a kept machine's load needs, and the file its serve command touches. */
interface PendingWork {
  servingFile: string;
  socket: string;
  ramGiB: number;
  cores: number;
  gpus: string;
}

/**
 * Starts the market: it polls the fake for new instances, starts their agents (each in front
 * of a `cuzkit sim` sized to the offer and running at the machine's true speed), kills those
 * Vast no longer has, kills hosts that die, and feeds kept machines production work.
 */
export function startMarket(fake: FakeVastServer, options: MarketOptions): Market {
  const state: MarketState = {
    fake,
    options,
    dir: mkdtempSync(join(tmpdir(), "cuzkit-market-")),
    machines: new Map(),
    waiters: [],
    timeScale: options.timeScale ?? 0.0003,
    behaviours: options.behaviours ?? {},
    cuzkitShell: [options.cuzkit.command, ...options.cuzkit.args].map(quote).join(" "),
    loads: new Map(),
    deathTimers: new Set(),
    pendingWork: new Map(),
    ticks: 0,
  };
  const { machines } = state;
  const timer = setInterval(() => pollMarket(state), 50);
  return {
    machines,
    machineFor(instanceId) {
      const found = [...machines.values()].find((m) => m.instanceId === instanceId);
      if (found) return Promise.resolve(found);
      return new Promise((resolve) => state.waiters.push({ instanceId, resolve }));
    },
    freeze(vastId) {
      const machine = machines.get(vastId);
      if (machine) killGroup(machine, "SIGSTOP");
    },
    kill(vastId) {
      const machine = machines.get(vastId);
      if (machine) killMachine(machine);
    },
    billedMs(machine, now = Date.now()) {
      return (machine.goneAt ?? now) - machine.startedAt;
    },
    async close() {
      clearInterval(timer);
      for (const t of state.deathTimers) clearTimeout(t);
      await Promise.all([...state.loads.keys()].map((vastId) => stopLoad(state, vastId)));
      for (const machine of machines.values()) killMachine(machine);
      await Promise.all([...machines.values()].map((m) => m.exited));
      rmSync(state.dir, { recursive: true, force: true });
    },
  };
}

/** One poll: start agents for new instances, loads for newly kept machines, and end what Vast let go. */
function pollMarket(state: MarketState): void {
  const { fake, machines, pendingWork } = state;
  // About once a second: a daemon started since is known before its agent can die.
  if (++state.ticks % 20 === 0) for (const machine of machines.values()) noteProcesses(machine);
  for (const [vastId, record] of fake.instances) {
    if (!machines.has(vastId) && typeof record.label === "string") startAgent(state, vastId, record);
  }
  for (const [vastId, work] of pendingWork) {
    if (existsSync(work.servingFile)) {
      pendingWork.delete(vastId);
      startLoad(state, vastId, work);
    }
  }
  for (const [vastId, machine] of machines) {
    const gone = !fake.instances.has(vastId) || machine.diedAt !== undefined;
    if (gone && machine.goneAt === undefined) {
      machine.goneAt = machine.diedAt ?? Date.now();
      pendingWork.delete(vastId);
      void stopLoad(state, vastId);
    }
    if (!fake.instances.has(vastId) && !machine.returned) {
      // Vast lists a machine again once its rental ends (the fake alone keeps it rented).
      machine.returned = true;
      const offer = fake.offers.find((o) => o.id === machine.offerId);
      if (offer !== undefined) offer.rented = false;
    }
    if (!fake.instances.has(vastId)) killMachine(machine);
  }
}

/** Starts one machine's agent and daemon, with their exits wired to the market. */
function startAgent(state: MarketState, vastId: number, record: Record<string, unknown>): void {
  const { fake, options } = state;
  const create = fake
    .requestsTo(/^\/api\/v0\/asks\/\d+\/$/, "PUT")
    .find((r) => (r.body as { label?: string }).label === record.label);
  const env = (create?.body as { env?: Record<string, string> } | undefined)?.env ?? {};
  const offerId = Number(/\/asks\/(\d+)\//.exec(create?.path ?? "")?.[1]);
  const offer = fake.offers.find((o) => o.id === offerId);
  const behaviour = state.behaviours[offerId] ?? {};
  const work: PendingWork = {
    servingFile: join(state.dir, `${vastId}.serving`),
    socket: `unix://${join(state.dir, `${vastId}.sock`)}`,
    ramGiB: Math.floor(vastMemoryToBytes(record.cpu_ram as number) / 2 ** 30),
    cores: Math.floor((offer?.cpu_cores_effective as number | undefined) ?? 32),
    gpus: `${record.num_gpus as number}x${String(record.gpu_name).replace(/\s+/g, "")}`,
  };
  const agent = spawn(options.cuzkit.command, agentArgs(state, work, behaviour), {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true, // its own process group; its daemon has another, so killGroup kills it too
  });
  const output: string[] = [];
  agent.stdout?.on("data", (chunk: Buffer) => output.push(chunk.toString()));
  agent.stderr?.on("data", (chunk: Buffer) => output.push(chunk.toString()));
  const exited = new Promise<number | null>((resolve) => agent.once("exit", (code) => resolve(code)));
  const entry: MarketMachine = {
    vastId,
    instanceId: env.CUZKIT_INSTANCE_ID ?? "",
    offerId,
    dphTotal: Number(record.dph_total ?? offer?.dph_total ?? 0),
    agent,
    output,
    exited,
    startedAt: Date.now(),
    goneAt: undefined,
    diedAt: undefined,
    returned: false,
    completedProofs: 0,
    servingSince: undefined,
    firstCompletedAt: undefined,
    lastCompletedAt: undefined,
    processes: new Set(),
  };
  state.machines.set(vastId, entry);
  if (behaviour.diesAfterMs !== undefined) scheduleDeath(state, entry, behaviour.diesAfterMs);
  state.pendingWork.set(vastId, work);
  for (const waiter of state.waiters.filter((w) => w.instanceId === entry.instanceId)) waiter.resolve(entry);
}

/** The `cuzkit agent` arguments of one machine: its sim sized to the offer at its true speed. */
function agentArgs(state: MarketState, work: PendingWork, behaviour: MachineBehaviour): string[] {
  const { options, timeScale } = state;
  const machine = `--ram ${work.ramGiB}GiB --cores ${work.cores} --gpus ${work.gpus}`;
  // The true speed is the sim's time scale: a machine at 0.55 takes 1/0.55 as long per proof.
  const simScale = timeScale / (behaviour.speed ?? 1);
  const sim = `${state.cuzkitShell} sim ${machine} --time-scale ${simScale} --pce-cached --log-level warn ${behaviour.simFlags ?? ""}`;
  return [
    ...options.cuzkit.args,
    "agent",
    "--synthetic",
    "--spawn",
    sim,
    "--addr",
    work.socket,
    "--params-command",
    behaviour.paramsCommand ?? "true",
    "--ready-timeout",
    `${Math.round((options.readyTimeoutMs ?? 30_000) / 1000)}s`,
    "--sim-time-scale",
    String(timeScale),
    // Kept: the serve command (Curio on a real machine) tells the market to send work.
    "--serve-command",
    `touch ${quote(work.servingFile)}`,
    ...(options.throughputEveryMs === undefined
      ? []
      : ["--throughput-every", `${Math.max(1, Math.round(options.throughputEveryMs))}ms`]),
    ...machine.split(" "),
  ];
}

/** The host dies after `afterMs`: its processes are killed and Vast reports the instance exited. */
function scheduleDeath(state: MarketState, entry: MarketMachine, afterMs: number): void {
  const timer = setTimeout(() => {
    state.deathTimers.delete(timer);
    if (!state.fake.instances.has(entry.vastId)) return;
    entry.diedAt = Date.now();
    killMachine(entry);
    state.fake.setInstanceStatus(entry.vastId, "exited", "the host went away");
  }, afterMs);
  state.deathTimers.add(timer);
}

/** Keeps the tuner's concurrency of proofs in flight on a kept machine's daemon until it goes. */
function startLoad(state: MarketState, vastId: number, work: PendingWork): void {
  const production = state.options.production;
  const machine = state.machines.get(vastId);
  if (production === undefined || machine === undefined) return;
  machine.servingSince = Date.now();
  const hardware = hardwareFrom({ ram: `${work.ramGiB}GiB`, cores: work.cores, gpus: work.gpus });
  const concurrency = Math.max(1, recommend(hardware, { dialect: "budget" }).bench.concurrency);
  const abort = new AbortController();
  const client = createCuzkClient({ address: work.socket, maxInFlight: concurrency });
  const worker = async () => {
    while (!abort.signal.aborted) {
      const proved = await client.prove(production.request, { signal: abort.signal }).then(
        () => true,
        () => false,
      );
      if (proved && !abort.signal.aborted) {
        machine.completedProofs += 1;
        machine.firstCompletedAt ??= Date.now();
        machine.lastCompletedAt = Date.now();
      }
      // A daemon that refuses work (dying, restarting) is not hammered.
      if (!proved) await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  const done = Promise.all(Array.from({ length: concurrency }, worker)).then(() => undefined);
  state.loads.set(vastId, { abort, client, done });
}

async function stopLoad(state: MarketState, vastId: number): Promise<void> {
  const load = state.loads.get(vastId);
  if (load === undefined) return;
  state.loads.delete(vastId);
  load.abort.abort();
  await load.done;
  await load.client.close().catch(() => undefined);
}

/** Notes the processes below a live agent, so they die with it even after the agent is gone. */
function noteProcesses(machine: MarketMachine): boolean {
  const pid = machine.agent.pid;
  const alive = pid !== undefined && machine.agent.exitCode === null && machine.agent.signalCode === null;
  if (alive) for (const p of descendantPids(pid)) machine.processes.add(p);
  return alive;
}

/** Kills a machine as Vast would: wakes it (a frozen one too), then kills it. */
function killMachine(machine: MarketMachine): void {
  killGroup(machine, "SIGCONT");
  killGroup(machine, "SIGKILL");
}

/** Signals the whole machine: the agent's group and every process seen below it (the daemon's group too). */
function killGroup(machine: MarketMachine, signal: NodeJS.Signals): void {
  const alive = noteProcesses(machine);
  const pid = machine.agent.pid;
  signalEach([...(alive && pid !== undefined ? [-pid] : []), ...machine.processes], signal);
  // Forget the ones that are gone, so a pid the system hands out again is never signalled.
  for (const p of machine.processes) if (!isRunning(p)) machine.processes.delete(p);
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

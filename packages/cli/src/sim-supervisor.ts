import {
  addressAnswers,
  type DaemonExit,
  DaemonStartError,
  type DaemonSupervisor,
  explainExit,
} from "@cuzkit/bench";
import { createConsoleLogger, type HardwareSpec, readCuzkConfig } from "@cuzkit/core";
import { type SimDaemon, type SimFaults, startSimDaemon } from "@cuzkit/sim";

/** Options of {@link createSimSupervisor}. */
export interface SimSupervisorOptions {
  /** The simulated machine. */
  hardware: HardwareSpec;
  /** Real seconds per modelled second. */
  timeScale: number;
  /** Where to listen first; later starts reuse the address it got. Default "127.0.0.1:0". */
  listen?: string | undefined;
  /** The daemon's srs.param_cache, where PCE files are written and read. Default: none. */
  paramCacheDir?: string | undefined;
  /** Faults for every start. Default none. */
  faults?: SimFaults | undefined;
  /** Lines of daemon log kept. Default 40. */
  logTailLines?: number | undefined;
}

/** A DaemonSupervisor that runs the simulated daemon in this process, for `cuzkit demo` and tests. */
export interface SimSupervisor extends DaemonSupervisor {
  /** The address clients dial; fixed after the first start. */
  readonly address: string;
  /** The running simulator, if any. */
  readonly sim: SimDaemon | undefined;
}

/** What the supervisor knows: its log tail, crashes, listeners, the running simulator and its address. */
interface SimSupervisorState {
  readonly options: SimSupervisorOptions;
  readonly createdAt: number;
  readonly crashes: DaemonExit[];
  readonly listeners: Set<(exit: DaemonExit) => void>;
  readonly tail: string[];
  /** Where the next start listens (the address the first got, after it). */
  listen: string;
  sim: SimDaemon | undefined;
  address: string;
  starts: number;
  /** Set by kill(): the crash that follows is a kill of a frozen daemon, for this reason. */
  killReason: string | undefined;
}

/** Keeps a line of the daemon's log, up to the tail's size. */
function remember(state: SimSupervisorState, line: string): void {
  state.tail.push(line);
  if (state.tail.length > (state.options.logTailLines ?? 40)) state.tail.shift();
}

/** An exit as a real process's would read: 137 unless asked for, with the log tail. */
function exitOf(
  state: SimSupervisorState,
  expected: boolean,
  frozen: boolean,
  explanation: string,
  likelyOom: boolean,
): DaemonExit {
  return {
    atMs: Date.now() - state.createdAt,
    exitCode: expected ? 0 : 137,
    signal: null,
    expected,
    likelyOom,
    frozen,
    explanation,
    logTail: [...state.tail],
  };
}

function isRunning(state: SimSupervisorState): boolean {
  return state.sim !== undefined && state.sim.state !== "crashed" && state.sim.state !== "stopped";
}

/** Starts the simulator with `configToml` once nothing answers at the address; its crashes are reported as 137 exits. */
async function startSim(state: SimSupervisorState, configToml: string, label: string): Promise<void> {
  const { options } = state;
  if (await addressAnswers(state.listen)) {
    throw new DaemonStartError(`something already answers at ${state.listen}`, {
      hint: "stop the other daemon first",
      code: "ADDRESS_IN_USE",
    });
  }
  const { config } = readCuzkConfig(configToml);
  state.starts++;
  state.killReason = undefined;
  remember(state, `== starting the daemon (${label})`);
  // What the daemon prints (its info log); its crash line is the simulator's inside knowledge.
  const print = createConsoleLogger("info", (line) => {
    if (!/oom-kill|crash: /.test(line)) remember(state, line);
  });
  const started = await startSimDaemon({
    listen: state.listen,
    hardware: options.hardware,
    config,
    timeScale: options.timeScale,
    paramCacheDir: options.paramCacheDir,
    logger: print,
    faults: options.faults,
  });
  await started.ready();
  state.sim = started;
  state.address = started.address;
  state.listen = started.address;
  started.onCrash(() => {
    const frozen = state.killReason !== undefined;
    const explained = explainExit(137, null, state.tail);
    const exit = exitOf(
      state,
      false,
      frozen,
      state.killReason ?? explained.text,
      !frozen && explained.likelyOom,
    );
    state.crashes.push(exit);
    for (const listener of state.listeners) listener(exit);
  });
}

/** Stops the simulator; the exit when it was running. */
async function stopSim(state: SimSupervisorState): Promise<DaemonExit | undefined> {
  const current = state.sim;
  if (!current) return undefined;
  state.sim = undefined;
  const wasRunning = current.state !== "crashed" && current.state !== "stopped";
  await current.stop();
  if (!wasRunning) return undefined;
  remember(state, "== stopped by the benchmark");
  return exitOf(state, true, false, "stopped by the benchmark", false);
}

/**
 * Runs `cuzkit sim` in-process behind the supervisor interface the benchmark uses for a real
 * daemon process: each start reads the cuzk.toml it is given; when the simulated daemon dies,
 * the supervisor sees what it would see of a real one: exit code 137 and the lines the daemon
 * printed before it, explained by the same rules (explainExit). The simulator's own account of
 * the OOM (its modelled memory) is not in the tail: a daemon killed by the kernel prints nothing.
 */
export async function createSimSupervisor(options: SimSupervisorOptions): Promise<SimSupervisor> {
  const state: SimSupervisorState = {
    options,
    createdAt: Date.now(),
    crashes: [],
    listeners: new Set(),
    tail: [],
    listen: options.listen ?? "127.0.0.1:0",
    sim: undefined,
    address: "",
    starts: 0,
    killReason: undefined,
  };
  const supervisor: SimSupervisor = {
    get address() {
      return state.address;
    },
    get sim() {
      return state.sim;
    },
    get running() {
      return isRunning(state);
    },
    crashes: state.crashes,
    get starts() {
      return state.starts;
    },
    async start(configToml, label) {
      if (isRunning(state)) await stopSim(state);
      await startSim(state, configToml, label);
    },
    stop: () => stopSim(state),
    async kill(reason) {
      const current = state.sim;
      if (!current || !isRunning(state)) return undefined;
      state.killReason = reason;
      current.crash("killed");
      return state.crashes.at(-1);
    },
    onCrash(listener) {
      state.listeners.add(listener);
      return () => state.listeners.delete(listener);
    },
    logTail: () => [...state.tail],
  };
  return supervisor;
}

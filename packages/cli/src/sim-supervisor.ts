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

/**
 * Runs `cuzkit sim` in-process behind the supervisor interface the benchmark uses for a real
 * daemon process: each start reads the cuzk.toml it is given; when the simulated daemon dies,
 * the supervisor sees what it would see of a real one: exit code 137 and the lines the daemon
 * printed before it, explained by the same rules (explainExit). The simulator's own account of
 * the OOM (its modelled memory) is not in the tail: a daemon killed by the kernel prints nothing.
 */
export async function createSimSupervisor(options: SimSupervisorOptions): Promise<SimSupervisor> {
  const createdAt = Date.now();
  const crashes: DaemonExit[] = [];
  const listeners = new Set<(exit: DaemonExit) => void>();
  const tailSize = options.logTailLines ?? 40;
  const tail: string[] = [];
  const remember = (line: string) => {
    tail.push(line);
    if (tail.length > tailSize) tail.shift();
  };
  let listen = options.listen ?? "127.0.0.1:0";
  let sim: SimDaemon | undefined;
  let address = "";
  let starts = 0;
  let killReason: string | undefined;

  const exitOf = (
    expected: boolean,
    frozen: boolean,
    explanation: string,
    likelyOom: boolean,
  ): DaemonExit => ({
    atMs: Date.now() - createdAt,
    exitCode: expected ? 0 : 137,
    signal: null,
    expected,
    likelyOom,
    frozen,
    explanation,
    logTail: [...tail],
  });

  const supervisor: SimSupervisor = {
    get address() {
      return address;
    },
    get sim() {
      return sim;
    },
    get running() {
      return sim !== undefined && sim.state !== "crashed" && sim.state !== "stopped";
    },
    crashes,
    get starts() {
      return starts;
    },
    async start(configToml, label) {
      if (supervisor.running) await supervisor.stop();
      if (await addressAnswers(listen)) {
        throw new DaemonStartError(`something already answers at ${listen}`, {
          hint: "stop the other daemon first",
          code: "ADDRESS_IN_USE",
        });
      }
      const { config } = readCuzkConfig(configToml);
      starts++;
      killReason = undefined;
      remember(`== starting the daemon (${label})`);
      // What the daemon prints (its info log); its crash line is the simulator's inside knowledge.
      const print = createConsoleLogger("info", (line) => {
        if (!/oom-kill|crash: /.test(line)) remember(line);
      });
      const started = await startSimDaemon({
        listen,
        hardware: options.hardware,
        config,
        timeScale: options.timeScale,
        paramCacheDir: options.paramCacheDir,
        logger: print,
        faults: options.faults,
      });
      await started.ready();
      sim = started;
      address = started.address;
      listen = started.address;
      started.onCrash(() => {
        const frozen = killReason !== undefined;
        const explained = explainExit(137, null, tail);
        const exit = exitOf(false, frozen, killReason ?? explained.text, !frozen && explained.likelyOom);
        crashes.push(exit);
        for (const listener of listeners) listener(exit);
      });
    },
    async stop() {
      const current = sim;
      if (!current) return undefined;
      sim = undefined;
      const wasRunning = current.state !== "crashed" && current.state !== "stopped";
      await current.stop();
      if (!wasRunning) return undefined;
      remember("== stopped by the benchmark");
      return exitOf(true, false, "stopped by the benchmark", false);
    },
    async kill(reason) {
      const current = sim;
      if (!current || !supervisor.running) return undefined;
      killReason = reason;
      current.crash("killed");
      return crashes.at(-1);
    },
    onCrash(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    logTail: () => [...tail],
  };
  return supervisor;
}

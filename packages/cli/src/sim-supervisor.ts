import type { DaemonExit, DaemonSupervisor } from "@cuzkit/bench";
import { type HardwareSpec, readCuzkConfig } from "@cuzkit/core";
import { type SimDaemon, type SimFaults, startSimDaemon } from "@cuzkit/sim";

/** Options of {@link createSimSupervisor}. */
export interface SimSupervisorOptions {
  /** The simulated machine. */
  hardware: HardwareSpec;
  /** Real seconds per modelled second. */
  timeScale: number;
  /** Where to listen first; later starts reuse the port it got. Default "127.0.0.1:0". */
  listen?: string;
  /** Faults for every start. Default none. */
  faults?: SimFaults;
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
 * daemon process: each start reads the cuzk.toml it is given, and a simulated OOM kill is
 * reported as an exit with code 137, as the kernel's OOM killer leaves a real one.
 */
export async function createSimSupervisor(options: SimSupervisorOptions): Promise<SimSupervisor> {
  const createdAt = Date.now();
  const crashes: DaemonExit[] = [];
  const listeners = new Set<(exit: DaemonExit) => void>();
  const log: string[] = [];
  let listen = options.listen ?? "127.0.0.1:0";
  let sim: SimDaemon | undefined;
  let address = "";

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
    async start(configToml, label) {
      if (supervisor.running) await supervisor.stop();
      const { config } = readCuzkConfig(configToml);
      const started = await startSimDaemon({
        listen,
        hardware: options.hardware,
        config,
        timeScale: options.timeScale,
        ...(options.faults ? { faults: options.faults } : {}),
      });
      await started.ready();
      sim = started;
      address = started.address;
      listen = started.address;
      log.push(`started (${label}): ${config.dialect} config, listening on ${address}`);
      started.onCrash((reason, detail) => {
        log.push(detail.message);
        const exit: DaemonExit = {
          atMs: Date.now() - createdAt,
          exitCode: 137,
          signal: null,
          expected: false,
          likelyOom: reason === "oom",
          explanation:
            reason === "oom"
              ? `killed (exit 137): the OOM killer (${detail.message}); lower partition workers / concurrency (cuzkit tune)`
              : `killed (exit 137): ${detail.message}`,
          logTail: log.slice(-10),
        };
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
      log.push("stopped by the benchmark");
      return {
        atMs: Date.now() - createdAt,
        exitCode: 0,
        signal: null,
        expected: true,
        likelyOom: false,
        explanation: "stopped by the benchmark",
        logTail: log.slice(-10),
      };
    },
    onCrash(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    logTail: () => [...log],
  };
  return supervisor;
}

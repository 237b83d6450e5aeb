import { daemonDialects, type LogLevel } from "@cuzkit/core";
import type { SimDaemon } from "@cuzkit/sim";
import { Command, Option } from "commander";
import { hardwareOptions } from "../hardware-flags.js";
import { simHelpTimeScale } from "../help-defaults.js";
import type { CliIO } from "../io.js";
import { parseSize, positiveNumberOption, wholeNumberOption } from "../parse.js";

/** What `createSimCommand` can be given besides the IO, for tests and embedding. */
export interface SimCommandDeps {
  /** Stops the daemon gracefully (exit code 0) when aborted. Default: SIGINT or SIGTERM of this process. */
  shutdownSignal?: AbortSignal;
  /** Called once the daemon listens. Default: nothing. */
  onStarted?: (daemon: SimDaemon) => void;
}

/** Exit code of a command whose daemon died like a killed process (128 + SIGKILL). */
export const simCrashExitCode = 137;

/** The flags of `cuzkit sim`, as commander parses them. */
export interface SimFlags {
  listen: string;
  statusListen?: string;
  ram: number;
  cores: number;
  gpus: string;
  memoryLimit?: number;
  config?: string;
  dialect?: string;
  timeScale?: number;
  proofTimeMs?: number;
  pceCached?: boolean;
  paramCache?: string;
  fault: string[];
  logLevel: string;
}

/** The --log-level values. */
export const logLevels: readonly LogLevel[] = ["debug", "info", "warn", "error"];

/** The simulated machine when no flag says otherwise: the Czechia incident's 2x RTX 3090 box. */
const defaultSimMachine = { ram: "251GiB", cores: 32, gpus: "2xRTX3090" } as const;

const simHelp = [
  "",
  "Output: the first stdout line is `listening <address>`, then `status <url>` with --status-listen.",
  "Exit codes: 0 after SIGINT/SIGTERM; 137 when the simulated daemon dies (modelled OOM kill or a crash fault).",
  "",
  "Examples:",
  "  cuzkit sim --listen 127.0.0.1:9820 --status-listen 127.0.0.1:9821",
  "  cuzkit sim --listen unix:///tmp/cuzk.sock --time-scale 0.01 --pce-cached",
  "  cuzkit sim --ram 125GiB --cores 32 --gpus 2xRTX3090 --config cuzk.toml    # does this config OOM?",
  "  cuzkit sim --ram 256GiB --memory-limit 240GiB --dialect budget",
  "  cuzkit sim --listen 127.0.0.1:0 --proof-time-ms 2000 --fault crash-after=3 --fault start-delay=2000",
  "  cuzkit sim --fault fail-next=2:'partition 3 synthesis failed: test' --fault stall-after=5",
].join("\n");

/**
 * `cuzkit sim`: runs a simulated cuzk daemon until SIGINT/SIGTERM (exit 0). Prints
 * `listening <address>` as the first stdout line (then `status <url>` if --status-listen),
 * logs to stderr, and when the simulated daemon dies (modelled OOM or a crash fault) prints
 * the reason to stderr and ends with exit code 137, like a killed process.
 */
export function createSimCommand(io: CliIO, deps: SimCommandDeps = {}): Command {
  const machine = hardwareOptions();
  return (
    new Command("sim")
      .description(
        "run a simulated cuzk daemon (gRPC cuzk.v1.ProvingEngine) whose proofs take the model's time, with fault injection",
      )
      .configureOutput({
        writeOut: (text) => io.stdout.write(text),
        writeErr: (text) => io.stderr.write(text),
      })
      .option(
        "--listen <address>",
        "gRPC listen address: IP:port, [v6]:port or unix:///abs/path (port 0 picks a free one)",
        "127.0.0.1:9820",
      )
      .option(
        "--status-listen <address>",
        "serve the daemon's HTTP GET /status JSON on this IP:port (default: off)",
      )
      .addOption(
        machine.ram.default(parseSize(defaultSimMachine.ram, { what: "--ram" }), defaultSimMachine.ram),
      )
      .addOption(machine.cores.default(defaultSimMachine.cores))
      .addOption(machine.gpus.default(defaultSimMachine.gpus))
      .addOption(machine.memoryLimit.default(undefined, "the RAM; above it the daemon is OOM-killed"))
      .option(
        "--config <file>",
        "a cuzk.toml to simulate (default: a safe config: partition_workers 4, 1 GPU worker per GPU)",
      )
      .option(
        "--dialect <dialect>",
        `daemon dialect: ${daemonDialects.join(" or ")} (default: inferred from --config)`,
      )
      .option(
        "--time-scale <factor>",
        `real seconds per modelled second (default: ${simHelpTimeScale}, a 150 s proof takes ${150_000 * simHelpTimeScale} ms); 0.01 for a demo, 1 for real time`,
        positiveNumberOption("--time-scale", "0.01"),
      )
      .option(
        "--proof-time-ms <ms>",
        "every proof takes exactly this many real ms, ignoring the model (0 = instant)",
        wholeNumberOption("--proof-time-ms", 0, "2000"),
      )
      .option("--pce-cached", "a PCE cache exists: the first proof is not cold")
      .option(
        "--param-cache <dir>",
        "the daemon's srs.param_cache: PCE files are read at start and written after the first cold proof (default: srs.param_cache of --config, else off)",
      )
      .addOption(
        new Option(
          "--fault <fault>",
          "inject a fault (repeatable): crash-after=N, crash-at=MS, fail-next=N[:message], hold-after=N, stall-after=N, stick-after=N (proofs never end, the daemon still answers), start-delay=MS",
        )
          .argParser((value: string, previous: string[]) => [...previous, value])
          .default([], "none"),
      )
      .option("--log-level <level>", `stderr log level: ${logLevels.join(", ")}`, "info")
      .addHelpText("after", simHelp)
      // The simulator (its gRPC server and model) loads only when the daemon starts.
      .action(async (flags: SimFlags) => (await import("./sim-run.js")).runSim(io, deps, flags))
  );
}

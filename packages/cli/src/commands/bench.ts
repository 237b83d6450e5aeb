import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import {
  type BenchmarkReport,
  benchDefaults,
  createDaemonSupervisor,
  createProgressOutput,
  formatReport,
  type PhaseEtas,
  runBenchmark,
  type SupervisionOptions,
  verdictExitCode,
} from "@cuzkit/bench";
import { createCuzkClient, defaultDeadlines } from "@cuzkit/client";
import {
  type DaemonConfig,
  type DaemonDialect,
  daemonDialects,
  InvalidInputError,
  readCuzkConfig,
} from "@cuzkit/core";
import { emitCuzkToml, recommend } from "@cuzkit/tuner";
import { Command, InvalidArgumentError, Option } from "commander";
import { stringify as toToml } from "smol-toml";
import { appendJsonLine } from "../bench-files.js";
import { addrHelp, resolveAddress } from "../common.js";
import { addHardwareOptions, type HardwareFlags, resolveHardwareFlags, specOf } from "../hardware-flags.js";
import { interruptOnSignals } from "../interrupt.js";
import { type CliIO, CommandExit } from "../io.js";
import { paramCacheOf } from "../param-cache.js";
import {
  durationOption,
  durationText,
  parseWholeNumber,
  positiveNumberOption,
  wholeNumberOption,
} from "../parse.js";
import { addProofInputOptions, buildProofInput, type ProofInputFlags } from "../proof-input.js";
import { addStuckOptions, type StuckFlags, stuckOption } from "../stuck-flags.js";
import { checkWritablePath } from "../writable-path.js";

interface BenchFlags extends ProofInputFlags, HardwareFlags, StuckFlags {
  addr?: string;
  count: number;
  concurrency: string;
  warmup: "auto" | "none" | number;
  proofTimeout?: number;
  warmupTimeout?: number;
  readyTimeout?: number;
  batchTimeout?: number;
  deadlineMargin: number;
  minProofsPerHour?: number;
  earlyVerdict?: boolean;
  json?: boolean;
  out?: string;
  statusFile?: string;
  heartbeat: number;
  spawn?: string;
  config?: string;
  paramCache?: string;
  daemonLog?: string;
  dialect: DaemonDialect;
  onCrash?: "restart" | "stop";
  maxRestarts?: number;
  resubmit?: number;
  probeInterval: number;
  probeTimeout: number;
  unresponsiveAfter: number;
}

/** The daemon's default srs.param_cache (docs/daemon-facts.md section 3). */
const daemonDefaultParamCache = "/data/zk/params";

function parseWarmup(text: string): "auto" | "none" | number {
  if (text === "auto" || text === "none") return text;
  try {
    return parseWholeNumber(text, { what: "--warmup", min: 0, example: "auto" });
  } catch {
    throw new InvalidArgumentError(
      `"${text}" is not a warmup: give "auto", "none" or a number of warmup proofs`,
    );
  }
}

/** Flags that only mean something with another one; given without it they are refused, not ignored. */
function rejectConflictingBenchFlags(flags: BenchFlags): void {
  const spawnOnly = [
    ["--config", flags.config],
    ["--param-cache", flags.paramCache],
    ["--daemon-log", flags.daemonLog],
    ["--on-crash", flags.onCrash],
    ["--max-restarts", flags.maxRestarts],
  ] as const;
  for (const [flag, value] of spawnOnly) {
    if (value !== undefined && flags.spawn === undefined)
      throw new InvalidInputError(`${flag} is only used with --spawn`, {
        hint: "add --spawn to have cuzkit start and supervise the daemon, or configure the running daemon yourself",
      });
  }
  if (flags.maxRestarts !== undefined && flags.onCrash !== "restart")
    throw new InvalidInputError("--max-restarts is only used with --on-crash restart", {
      hint: "add --on-crash restart, or leave --max-restarts out (the default is to stop at the first crash)",
    });
  if (flags.warmupTimeout !== undefined && flags.warmup === "none")
    throw new InvalidInputError("--warmup-timeout is not used with --warmup none", {
      hint: "leave --warmup-timeout out, or run a warmup (--warmup auto or a number)",
    });
  if (flags.earlyVerdict && flags.minProofsPerHour === undefined)
    throw new InvalidInputError("--early-verdict needs a threshold", { hint: "add --min-proofs-per-hour N" });
}

/** A cuzk.toml with srs.param_cache set (added when absent), so the bench knows where the PCE file goes. */
function withParamCache(toml: string, dir: string): string {
  return paramCacheOf(toml) === undefined
    ? `${toml.trimEnd()}\n\n[srs]\nparam_cache = ${JSON.stringify(dir)}\n`
    : toml;
}

/** `cuzkit bench`: warmup plus a timed batch, optionally with the daemon started and watched by us. */
export function createBenchCommand(io: CliIO): Command {
  const command = new Command("bench")
    .description(
      "benchmark a cuzk daemon: warmup, timed batch, proofs/hour and a verdict (MET, BELOW, UNSTABLE, FAILED)",
    )
    .option("--addr <address>", addrHelp);
  addStuckOptions(addProofInputOptions(command))
    .option("--count <n>", "timed proofs", wholeNumberOption("--count", 1, "12"), 12)
    .option(
      "--resubmit <n>",
      `resubmit a proof up to N times when the daemon restarts and loses it, at submit or while proving (default ${benchDefaults.resubmit})`,
      wholeNumberOption("--resubmit", 0, "1"),
    )
    .option("--concurrency <n|auto>", "proofs in flight; auto = the tuner's value for this machine", "1")
    .option(
      "--warmup <auto|none|n>",
      "untimed warmup proofs first (auto = one, with the long warmup deadline)",
      parseWarmup,
      "auto",
    )
    .option(
      "--proof-timeout <duration>",
      `deadline of each timed proof (default ${durationText(defaultDeadlines.proofMs)})`,
      durationOption("--proof-timeout", "45m"),
    )
    .option(
      "--warmup-timeout <duration>",
      `deadline of the warmup (default: the model's ETA x margin, else ${durationText(defaultDeadlines.warmupProofMs)}; not with --warmup none)`,
      durationOption("--warmup-timeout", "90m"),
    )
    .option(
      "--ready-timeout <duration>",
      `how long to wait for the daemon to answer (default ${durationText(benchDefaults.readyTimeoutMs)})`,
      durationOption("--ready-timeout", "20m"),
    )
    .option(
      "--batch-timeout <duration>",
      "deadline of the timed batch (default: the model's ETA x margin, else none)",
      durationOption("--batch-timeout", "6h"),
    )
    .option(
      "--deadline-margin <n>",
      "phase deadlines are the model's ETA times this",
      positiveNumberOption("--deadline-margin", "3"),
      3,
    )
    .option(
      "--min-proofs-per-hour <n>",
      "threshold: exit 2 when below it",
      positiveNumberOption("--min-proofs-per-hour", "40"),
    )
    .option(
      "--early-verdict",
      "stop the batch once a 99% confidence bound on the report's proofs/hour clears the threshold (from 5 proofs)",
    )
    .option("--json", "print the full report as JSON on stdout")
    .option("--out <file>", "append the report (with per-proof records) to FILE as one JSON line")
    .option(
      "--status-file <file>",
      "keep the current phase, its deadline and the results so far in FILE (JSON)",
    )
    .option(
      "--heartbeat <duration>",
      "print a heartbeat line this often when not on a terminal",
      durationOption("--heartbeat", "30s"),
      30_000,
    )
    .option(
      "--spawn <command>",
      'start and supervise the daemon: e.g. "cuzk-daemon --config {config} --listen {addr}"',
    )
    .option("--config <file>", "with --spawn: use this cuzk.toml instead of tuning one")
    .option(
      "--param-cache <dir>",
      `with --spawn: the daemon's srs.param_cache, where the warmup waits for the PCE file (default: from the config, else ${daemonDefaultParamCache})`,
    )
    .option("--daemon-log <file>", "with --spawn: append everything the daemon prints to FILE");
  addHardwareOptions(command)
    .addOption(
      new Option("--dialect <dialect>", "with --spawn and tuning: which daemon reads the config")
        .choices(daemonDialects)
        .default("budget"),
    )
    .addOption(
      new Option(
        "--on-crash <policy>",
        "with --spawn: restart a daemon that died or froze and continue, or stop with a verdict (default: stop)",
      ).choices(["restart", "stop"]),
    )
    .option(
      "--max-restarts <n>",
      `with --spawn --on-crash restart: restarts allowed (default ${benchDefaults.maxRestarts})`,
      wholeNumberOption("--max-restarts", 0, "2"),
    )
    .option(
      "--probe-interval <duration>",
      "watchdog: probe the daemon (GetStatus) this often",
      durationOption("--probe-interval", "10s"),
      10_000,
    )
    .option(
      "--probe-timeout <duration>",
      "watchdog: deadline of one probe",
      durationOption("--probe-timeout", "10s"),
      10_000,
    )
    .option(
      "--unresponsive-after <duration>",
      "watchdog: the daemon died or froze after this long without an answer",
      durationOption("--unresponsive-after", "30s"),
      30_000,
    )
    .addHelpText(
      "after",
      `
Verdicts and exit codes:
  0 MET       at or above --min-proofs-per-hour (or no threshold), daemon stable
  2 BELOW     stable, but under the threshold
  3 UNSTABLE  the daemon died, froze or failed proofs during the timed batch (whatever the rate)
  1 FAILED    could not benchmark (bad input, daemon never ready, warmup failed, interrupted)
SIGTERM, SIGHUP and SIGINT print the report of what was done and stop the spawned daemon.

Examples:
  cuzkit bench --addr 127.0.0.1:9820 --c1 /data/32gbench/c1.json --count 12 --concurrency 2
  cuzkit bench --spawn "cuzk-daemon --config {config} --listen {addr}" --addr 127.0.0.1:9820 \\
      --detect --concurrency auto --c1 c1.json --min-proofs-per-hour 40 --early-verdict \\
      --out runs.jsonl --status-file bench-status.json --daemon-log daemon.log
  cuzkit bench --addr 127.0.0.1:9820 --synthetic --json        # against \`cuzkit sim\``,
    )
    .action(async (flags: BenchFlags) => {
      // Everything is checked before any daemon work.
      const outPath =
        flags.out === undefined ? undefined : await checkWritablePath("--out", flags.out, io, "runs.jsonl");
      const statusPath =
        flags.statusFile === undefined
          ? undefined
          : await checkWritablePath("--status-file", flags.statusFile, io, "bench-status.json");
      const logPath =
        flags.daemonLog === undefined
          ? undefined
          : await checkWritablePath("--daemon-log", flags.daemonLog, io, "daemon.log");
      rejectConflictingBenchFlags(flags);
      const input = await buildProofInput(flags, io);
      const address = resolveAddress(flags.addr, io);
      const described =
        (await resolveHardwareFlags(flags)) ??
        // The daemon runs here when we spawn it: size it for this machine.
        (flags.spawn !== undefined && flags.config === undefined
          ? await resolveHardwareFlags({ detect: true })
          : undefined);
      const hardware = described === undefined ? undefined : specOf(described);
      // Tuned here only when we write the daemon's config; otherwise runBenchmark tunes the concurrency.
      const recommendation =
        hardware && flags.spawn !== undefined && flags.config === undefined
          ? recommend(hardware, { dialect: flags.dialect, workload: { kind: input.kind } })
          : undefined;
      let concurrency: number | "auto" = recommendation?.bench.concurrency ?? "auto";
      if (flags.concurrency !== "auto") {
        concurrency = parseWholeNumber(flags.concurrency, {
          what: "--concurrency",
          example: "2 (or auto with --detect)",
        });
      } else if (!hardware) {
        throw new InvalidInputError("--concurrency auto needs the machine", {
          hint: "add --detect or --ram/--cores/--gpus, or give a number",
        });
      }

      let supervision: SupervisionOptions | undefined;
      let modelConfigs: { config: DaemonConfig; warmupConfig?: DaemonConfig | undefined } | undefined;
      let closeChecker = async () => {};
      if (flags.spawn !== undefined) {
        let configToml: string;
        let warmupConfigToml: string | undefined;
        let configPath: string | undefined;
        if (flags.config !== undefined) {
          configPath = resolve(io.cwd, flags.config);
          configToml = await readFile(configPath, "utf8").catch((error: unknown) => {
            throw new InvalidInputError(`cannot read ${flags.config}: ${(error as Error).message}`, {
              hint: "check the path given to --config",
              cause: error,
            });
          });
        } else if (recommendation?.feasible) {
          configToml = emitCuzkToml(recommendation);
          if (recommendation.warmup.restart)
            warmupConfigToml = `# warmup config (cuzkit bench): ${recommendation.warmup.steps.join(" ")}\n${toToml(recommendation.warmup.config)}\n`;
        } else {
          throw new InvalidInputError(
            recommendation
              ? `no safe config for this machine: ${recommendation.infeasibleReason ?? ""}`
              : "--spawn needs a config",
            { hint: "give --config FILE, or the machine (--detect or --ram/--cores/--gpus) to tune one" },
          );
        }
        const paramCache = resolve(
          io.cwd,
          flags.paramCache ?? paramCacheOf(configToml) ?? daemonDefaultParamCache,
        );
        if (warmupConfigToml !== undefined) {
          // Both daemons must use the same param cache: the warmup writes the PCE file the full one reads.
          configToml = withParamCache(configToml, paramCache);
          warmupConfigToml = withParamCache(warmupConfigToml, paramCache);
        }
        modelConfigs = {
          config: readCuzkConfig(configToml, flags.config === undefined ? flags.dialect : undefined).config,
          warmupConfig:
            warmupConfigToml === undefined
              ? undefined
              : readCuzkConfig(warmupConfigToml, flags.dialect).config,
        };
        // Polls at least every second, so a daemon is seen soon after it listens.
        const checker = createCuzkClient({ address, reconnect: { maxDelayMs: 1_000 } });
        const supervisor = createDaemonSupervisor({
          command: flags.spawn,
          address,
          logFile: logPath,
          waitForReady: async (signal) => checker.waitForReady({ signal, timeoutMs: flags.readyTimeout }),
        });
        supervision = {
          supervisor,
          configToml,
          warmupConfigToml,
          pceWait: warmupConfigToml === undefined ? undefined : { dir: paramCache },
          configPath,
          onCrash: flags.onCrash,
          maxRestarts: flags.maxRestarts,
        };
        closeChecker = () => checker.close();
      }

      const overrides: PhaseEtas = {
        warmup: flags.warmupTimeout,
        timed: flags.batchTimeout,
        "waiting-for-daemon": flags.readyTimeout,
        "starting-daemon": flags.readyTimeout,
        "restarting-daemon": flags.readyTimeout,
      };
      const progress = createProgressOutput(io.stderr, flags.count);
      const interrupt = interruptOnSignals();
      let report: BenchmarkReport;
      try {
        report = await runBenchmark({
          address,
          request: input.request,
          kind: input.kind,
          count: flags.count,
          resubmit: flags.resubmit,
          concurrency,
          hardware,
          dialect: flags.dialect,
          warmup: flags.warmup,
          signal: interrupt.signal,
          onProgress: (event, snapshot) => progress.update(event, snapshot),
          heartbeatMs: flags.heartbeat,
          watchdog: {
            probeIntervalMs: flags.probeInterval,
            probeTimeoutMs: flags.probeTimeout,
            unresponsiveAfterMs: flags.unresponsiveAfter,
          },
          phaseDeadlines: { margin: flags.deadlineMargin, overrides },
          model: hardware && modelConfigs ? { hardware, ...modelConfigs } : undefined,
          statusFile: statusPath,
          earlyVerdict: flags.earlyVerdict,
          proofTimeoutMs: flags.proofTimeout,
          client: { stuck: stuckOption(flags) },
          warmupTimeoutMs: flags.warmupTimeout,
          readyTimeoutMs: flags.readyTimeout,
          minProofsPerHour: flags.minProofsPerHour,
          supervision,
        });
      } finally {
        progress.finish();
        interrupt.dispose();
        await closeChecker();
      }
      // The report is printed first, so a file that cannot be written loses nothing.
      io.stdout.write(flags.json ? `${JSON.stringify(report, null, 2)}\n` : `${formatReport(report)}\n`);
      if (outPath !== undefined) await appendJsonLine(outPath, report);
      const code = verdictExitCode(report.verdict);
      if (code !== 0) throw new CommandExit(code);
    });
  return command;
}

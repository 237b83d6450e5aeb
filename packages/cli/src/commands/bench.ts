import { appendFile, readFile } from "node:fs/promises";
import { resolve } from "node:path";
import {
  type BenchmarkReport,
  createDaemonSupervisor,
  createProgressOutput,
  formatReport,
  runBenchmark,
  type SupervisionOptions,
  verdictExitCode,
} from "@cuzkit/bench";
import { createCuzkClient } from "@cuzkit/client";
import { type DaemonDialect, daemonDialects, InvalidInputError } from "@cuzkit/core";
import { emitCuzkToml, recommend } from "@cuzkit/tuner";
import { Command, InvalidArgumentError, Option } from "commander";
import { stringify as toToml } from "smol-toml";
import { addrHelp, intOption, parseDurationMs, positiveNumber, resolveAddress } from "../common.js";
import { addHardwareOptions, type HardwareFlags, resolveHardwareFlags } from "../hardware-flags.js";
import { type CliIO, CommandExit } from "../io.js";
import { addProofInputOptions, buildProofInput, type ProofInputFlags } from "../proof-input.js";

interface BenchFlags extends ProofInputFlags, HardwareFlags {
  addr?: string;
  count: number;
  concurrency: string;
  warmup: string;
  proofTimeout?: number;
  warmupTimeout?: number;
  readyTimeout?: number;
  minProofsPerHour?: number;
  json?: boolean;
  out?: string;
  spawn?: string;
  config?: string;
  dialect: DaemonDialect;
  onCrash: "restart" | "stop";
  maxRestarts: number;
}

function parseWarmup(text: string): "auto" | "none" | number {
  if (text === "auto" || text === "none") return text;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0)
    throw new InvalidArgumentError('give "auto", "none" or a number of warmup proofs');
  return n;
}

/** Appends the report as one JSON line, so a series of runs can be compared. */
async function appendReport(path: string, report: BenchmarkReport, io: CliIO): Promise<void> {
  const target = resolve(io.cwd, path);
  try {
    await appendFile(target, `${JSON.stringify(report)}\n`);
  } catch (error) {
    throw new InvalidInputError(
      `cannot append the report to ${target}: ${(error as Error).message}`,
      "check that the folder exists and is writable",
      error,
    );
  }
}

/** `cuzkit bench`: warmup plus a timed batch, optionally with the daemon started and watched by us. */
export function createBenchCommand(io: CliIO): Command {
  const command = new Command("bench")
    .description(
      "benchmark a cuzk daemon: warmup, timed batch, proofs/hour and a verdict (never aborts on the first transport error)",
    )
    .option("--addr <address>", addrHelp);
  addProofInputOptions(command)
    .option("--count <n>", "timed proofs", intOption(1), 12)
    .option("--concurrency <n|auto>", "proofs in flight; auto = the tuner's value for this machine", "1")
    .option(
      "--warmup <auto|none|n>",
      "untimed warmup proofs first (auto = one, with the long warmup deadline)",
      "auto",
    )
    .option("--proof-timeout <duration>", "deadline of each timed proof (default 30m)", parseDurationMs)
    .option("--warmup-timeout <duration>", "deadline of each warmup proof (default 60m)", parseDurationMs)
    .option(
      "--ready-timeout <duration>",
      "how long to wait for the daemon to answer (default 10m)",
      parseDurationMs,
    )
    .option("--min-proofs-per-hour <n>", "threshold: exit 2 when below it", positiveNumber)
    .option("--json", "print the full report as JSON on stdout")
    .option("--out <file>", "append the report to FILE as one JSON line")
    .option(
      "--spawn <command>",
      'start and supervise the daemon: e.g. "cuzk-daemon --config {config} --listen {addr}"',
    )
    .option("--config <file>", "with --spawn: use this cuzk.toml instead of tuning one");
  addHardwareOptions(command)
    .addOption(
      new Option("--dialect <dialect>", "with --spawn and tuning: which daemon reads the config")
        .choices(daemonDialects)
        .default("budget"),
    )
    .addOption(
      new Option(
        "--on-crash <policy>",
        "with --spawn: restart the daemon and continue, or stop with a verdict",
      )
        .choices(["restart", "stop"])
        .default("stop"),
    )
    .option("--max-restarts <n>", "with --on-crash restart: restarts allowed", intOption(0), 2)
    .addHelpText(
      "after",
      `
Exit codes: 0 met the threshold (or no threshold), 2 below --min-proofs-per-hour, 1 could not benchmark.

Examples:
  cuzkit bench --addr 127.0.0.1:9820 --c1 /data/32gbench/c1.json --count 12 --concurrency 2
  cuzkit bench --spawn "cuzk-daemon --config {config} --listen {addr}" --addr 127.0.0.1:9820 \\
      --detect --concurrency auto --c1 c1.json --min-proofs-per-hour 40 --out runs.jsonl
  cuzkit bench --addr 127.0.0.1:9820 --synthetic --json        # against \`cuzkit sim\``,
    )
    .action(async (flags: BenchFlags) => {
      const input = await buildProofInput(flags, io);
      if (flags.config !== undefined && flags.spawn === undefined) {
        throw new InvalidInputError(
          "--config is only used with --spawn",
          "add --spawn, or configure the running daemon yourself",
        );
      }
      const address = resolveAddress(flags.addr, io);
      const hardware =
        (await resolveHardwareFlags(flags)) ??
        // The daemon runs here when we spawn it: size it for this machine.
        (flags.spawn !== undefined && flags.config === undefined
          ? await resolveHardwareFlags({ detect: true })
          : undefined);
      // Tuned here only when we write the daemon's config; otherwise runBenchmark tunes the concurrency.
      const recommendation =
        hardware && flags.spawn !== undefined && flags.config === undefined
          ? recommend(hardware, { dialect: flags.dialect, workload: { kind: input.kind } })
          : undefined;
      let concurrency: number | "auto" = recommendation?.bench.concurrency ?? "auto";
      if (flags.concurrency !== "auto") {
        concurrency = Number(flags.concurrency);
        if (!Number.isInteger(concurrency) || concurrency < 1) {
          throw new InvalidInputError(
            `--concurrency must be a whole number >= 1 or "auto", got "${flags.concurrency}"`,
            "give the proofs to keep in flight, such as 2, or auto with --detect",
          );
        }
      } else if (!hardware) {
        throw new InvalidInputError(
          "--concurrency auto needs the machine",
          "add --detect or --ram/--cores/--gpus, or give a number",
        );
      }

      let supervision: SupervisionOptions | undefined;
      let closeChecker = async () => {};
      if (flags.spawn !== undefined) {
        let configToml: string;
        let warmupConfigToml: string | undefined;
        if (flags.config !== undefined) {
          configToml = await readFile(resolve(io.cwd, flags.config), "utf8").catch((error: unknown) => {
            throw new InvalidInputError(
              `cannot read ${flags.config}: ${(error as Error).message}`,
              "check the path given to --config",
              error,
            );
          });
        } else if (recommendation) {
          configToml = emitCuzkToml(recommendation);
          if (recommendation.warmup.restart)
            warmupConfigToml = `# warmup config (cuzkit bench): ${recommendation.warmup.steps.join(" ")}\n${toToml(recommendation.warmup.config)}\n`;
        } else {
          throw new InvalidInputError(
            "--spawn needs a config",
            "give --config FILE, or the machine (--detect or --ram/--cores/--gpus) to tune one",
          );
        }
        const checker = createCuzkClient({ address });
        const supervisor = createDaemonSupervisor({
          command: flags.spawn,
          address,
          waitForReady: async (signal) => {
            await checker.waitForReady({
              signal,
              ...(flags.readyTimeout === undefined ? {} : { timeoutMs: flags.readyTimeout }),
            });
          },
        });
        supervision = {
          supervisor,
          configToml,
          ...(warmupConfigToml === undefined ? {} : { warmupConfigToml }),
          onCrash: flags.onCrash,
          maxRestarts: flags.maxRestarts,
        };
        closeChecker = () => checker.close();
      }

      const progress = createProgressOutput(io.stderr, flags.count);
      const interrupt = new AbortController();
      const onSignal = () => interrupt.abort();
      process.once("SIGINT", onSignal);
      let report: BenchmarkReport;
      try {
        report = await runBenchmark({
          address,
          request: input.request,
          kind: input.kind,
          count: flags.count,
          concurrency,
          ...(hardware ? { hardware, dialect: flags.dialect } : {}),
          warmup: parseWarmup(flags.warmup),
          signal: interrupt.signal,
          onProgress: (event, snapshot) => progress.update(event, snapshot),
          ...(flags.proofTimeout === undefined ? {} : { proofTimeoutMs: flags.proofTimeout }),
          ...(flags.warmupTimeout === undefined ? {} : { warmupTimeoutMs: flags.warmupTimeout }),
          ...(flags.readyTimeout === undefined ? {} : { readyTimeoutMs: flags.readyTimeout }),
          ...(flags.minProofsPerHour === undefined ? {} : { minProofsPerHour: flags.minProofsPerHour }),
          ...(supervision ? { supervision } : {}),
        });
      } finally {
        progress.finish();
        process.removeListener("SIGINT", onSignal);
        await closeChecker();
      }
      if (flags.out !== undefined) await appendReport(flags.out, report, io);
      io.stdout.write(flags.json ? `${JSON.stringify(report, null, 2)}\n` : `${formatReport(report)}\n`);
      const code = verdictExitCode(report.verdict);
      if (code !== 0) throw new CommandExit(code);
    });
  return command;
}

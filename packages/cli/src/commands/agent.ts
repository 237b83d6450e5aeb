import { agentDefaults, fleetDefaults } from "@cuzkit/fleet/defaults";
import { Command } from "commander";
import { addHardwareOptions } from "../hardware-flags.js";
import { benchHelpDefaults, clientHelpDefaults } from "../help-defaults.js";
import type { CliIO } from "../io.js";
import { durationOption, durationText, positiveNumberOption, wholeNumberOption } from "../parse.js";
import { addProofInputOptions } from "../proof-input-flags.js";
import type { AgentFlags } from "./agent-run.js";

/** The daemon's HTTP /status address the agent configures and reads by default (cuzk's usual 9821). */
export const defaultAgentStatusListen = "127.0.0.1:9821";

/** The daemon: how its parameters are fetched, how it starts, where it listens, what serves once kept. */
function addDaemonOptions(command: Command): Command {
  return command
    .option(
      "--params-command <command>",
      "shell command that fetches the proof parameters (default: none, present)",
    )
    .option(
      "--spawn <command>",
      "how to start the daemon, with {config} and {addr}",
      "cuzk-daemon --config {config} --listen {addr}",
    )
    .option("--addr <address>", "the daemon's address (default: a unix socket in a temporary folder)")
    .option("--serve-command <command>", "started once the machine is kept, with CUZK_ADDR set (Curio)");
}

/** Standalone (no fleet): where reports go, the keep threshold and the timed proofs. */
function addStandaloneOptions(command: Command): Command {
  return command
    .option(
      "--report-dir <dir>",
      "standalone (no CUZKIT_FLEET_URL): where reports are written",
      "cuzkit-agent",
    )
    .option(
      "--min-proofs-per-hour <n>",
      "standalone: the keep threshold",
      positiveNumberOption("--min-proofs-per-hour"),
    )
    .option(
      "--count <n>",
      "standalone: timed proofs",
      wholeNumberOption("--count", 1),
      fleetDefaults.benchmarkProofs,
    );
}

/** The deadlines of the daemon's start, the timed proofs and the warmup. */
function addDeadlineOptions(command: Command): Command {
  return command
    .option(
      "--ready-timeout <duration>",
      `how long the daemon may take to answer (default ${durationText(benchHelpDefaults.readyTimeoutMs)})`,
      durationOption("--ready-timeout"),
    )
    .option(
      "--proof-timeout <duration>",
      `deadline of each timed proof (default ${durationText(clientHelpDefaults.proofMs)})`,
      durationOption("--proof-timeout"),
    )
    .option(
      "--warmup-timeout <duration>",
      `deadline of the warmup proof (default ${durationText(clientHelpDefaults.warmupProofMs)})`,
      durationOption("--warmup-timeout"),
    );
}

/** What the agent shows and reports: the daemon's /status, its own page, throughput, modelled time. */
function addReportingOptions(command: Command): Command {
  return command
    .option(
      "--status-listen <host:port>",
      "the daemon's HTTP /status (daemon.status_listen, written into the tuned cuzk.toml): forwarded with each heartbeat; off turns it off",
      defaultAgentStatusListen,
    )
    .option(
      "--ui-listen <host:port>",
      "serve this machine's instance page (phases, benchmark, the daemon's /status) there, e.g. 127.0.0.1:7321 (default: not served)",
    )
    .option(
      "--ui-token <token>",
      "the token the page asks for; required when --ui-listen is beyond loopback (env CUZKIT_UI_TOKEN)",
    )
    .option(
      "--throughput-every <duration>",
      `once kept: how often production throughput is reported (default ${durationText(agentDefaults.throughputIntervalMs)})`,
      durationOption("--throughput-every"),
    )
    .option(
      "--sim-time-scale <factor>",
      "the daemon is a `cuzkit sim --time-scale FACTOR`: rates and windows are reported in its modelled time (default 1, a real daemon)",
      positiveNumberOption("--sim-time-scale"),
    );
}

/** `cuzkit agent`: runs on a rented machine, vets it and reports to `cuzkit fleet serve`. */
export function createAgentCommand(io: CliIO): Command {
  const command = new Command("agent").description(
    "vet this machine for the fleet: register, fetch parameters, tune, benchmark, report; serve when kept",
  );
  addReportingOptions(
    addDeadlineOptions(addStandaloneOptions(addDaemonOptions(addProofInputOptions(command)))),
  );
  addHardwareOptions(command)
    .addHelpText(
      "after",
      `
Environment (set by cuzkit fleet deploy): CUZKIT_FLEET_URL, CUZKIT_FLEET_TOKEN, CUZKIT_INSTANCE_ID.
Without CUZKIT_FLEET_URL the agent runs standalone and writes its reports to --report-dir.
The machine is read with --detect unless --ram/--cores/--gpus describe it.
Exit codes: 0 kept (served until stopped), 2 not kept, 1 a step failed.`,
    )
    // The agent's implementation (the benchmark, the reporter, the page) loads only when it runs.
    .action(async (flags: AgentFlags) => (await import("./agent-run.js")).runAgentCommand(io, flags));
  return command;
}

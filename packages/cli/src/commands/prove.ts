import {
  createCuzkClient,
  defaultDeadlines,
  defaultResubmit,
  type ProofResult,
  type ProveEvent,
} from "@cuzkit/client";
import { createConsoleLogger, proofKindLabel } from "@cuzkit/core";
import { Command } from "commander";
import { addrHelp, resolveAddress, secondsText, writeFileAtomic } from "../common.js";
import type { CliIO } from "../io.js";
import { durationOption, durationText, wholeNumberOption } from "../parse.js";
import { addProofInputOptions, buildProofInput, type ProofInputFlags } from "../proof-input.js";
import { addStuckOptions, type StuckFlags, stuckOption } from "../stuck-flags.js";
import { checkWritablePath } from "../writable-path.js";

interface ProveFlags extends ProofInputFlags, StuckFlags {
  addr?: string;
  out?: string;
  warmup?: boolean;
  timeout?: number;
  resubmit?: number;
  restartWait: number;
  json?: boolean;
  verbose?: boolean;
}

/**
 * How long `cuzkit prove` waits for a daemon that refuses connections to come back, in ms.
 * Default 40 s: long enough for a supervisor's restart to start listening, short enough that a
 * daemon nobody restarts is reported within 45 s (the client library's own default is 2 min).
 */
export const defaultRestartWaitMs = 40_000;

/** Wall-clock time of day, HH:MM:SS UTC, for lines a person reads while waiting. */
function timeOfDay(ms: number): string {
  return `${new Date(ms).toISOString().slice(11, 19)} UTC`;
}

function describe(event: ProveEvent, startedAtMs: number): string | undefined {
  switch (event.type) {
    case "waiting-for-restart":
      return (
        `daemon unreachable since ${timeOfDay(startedAtMs + event.unreachableSinceMs)}, ` +
        `waiting up to ${durationText(event.waitMs)} for a restart (${event.error.code}; --restart-wait sets the wait)`
      );
    case "submitted":
      return `submitted ${event.requestId}`;
    case "connection-lost":
      return `connection lost while ${event.phase === "submit" ? "submitting" : "waiting"}: ${event.error.code}`;
    case "reconnecting":
      return `reconnecting (probe ${event.probe}, next in ${event.delayMs} ms)`;
    case "resumed":
      return `re-attached to ${event.requestId}: the daemon still has the job`;
    case "daemon-restarted":
      return `the daemon restarted (${event.evidence}): the job is lost`;
    case "resubmitted":
      return `resubmitted as ${event.requestId}`;
    case "stuck":
      return (
        `DAEMON_STUCK: ${event.requestId} made no progress for ${secondsText(event.evidence.noProgressForMs)} ` +
        `(window ${secondsText(event.evidence.windowMs)}; --stuck-after sets it); not resubmitted`
      );
    default:
      return undefined;
  }
}

/** The proof's result on stdout: JSON (proof as hex) or a few lines for people. */
function printResult(io: CliIO, flags: ProveFlags, result: ProofResult, written: string | undefined): void {
  if (flags.json) {
    io.stdout.write(
      `${JSON.stringify(
        {
          kind: result.kind,
          jobId: result.jobId,
          proofHex: Buffer.from(result.proof).toString("hex"),
          proofBytes: result.proof.byteLength,
          wallMs: result.wallMs,
          timings: result.timings,
          attempts: result.attempts,
          resumes: result.resumes,
          resubmits: result.resubmits,
          out: written, // JSON.stringify leaves it out when no --out was given
        },
        null,
        2,
      )}\n`,
    );
    return;
  }
  const t = result.timings;
  const lines = [
    `completed ${result.jobId}: ${result.proof.byteLength} bytes of proof in ${secondsText(result.wallMs)}`,
    `  daemon: total ${secondsText(t.totalMs)}, queue ${secondsText(t.queueWaitMs)}, synthesis ${secondsText(t.synthesisMs)} and GPU ${secondsText(t.gpuComputeMs)} (sums over partitions)`,
    `  attempts ${result.attempts}, resumed ${result.resumes}, resubmitted ${result.resubmits}`,
    written ? `  proof written to ${written}` : "  (no --out: proof not written)",
  ];
  io.stdout.write(`${lines.join("\n")}\n`);
}

/** `cuzkit prove`'s action: build the input, prove with the steps on stderr, write the proof and print the result. */
async function runProve(io: CliIO, flags: ProveFlags): Promise<void> {
  const input = await buildProofInput(flags, io);
  // Checked before the daemon is contacted: a proof is GPU minutes, and must not be lost at the write.
  if (flags.out !== undefined) await checkWritablePath("--out", flags.out, io, "proof.bin");
  const client = createCuzkClient({
    address: resolveAddress(flags.addr, io),
    logger: flags.verbose ? createConsoleLogger("debug", (line) => io.stderr.write(`${line}\n`)) : undefined,
    reconnect: { giveUpAfterMs: flags.restartWait },
    stuck: stuckOption(flags),
  });
  try {
    io.stderr.write(`proving ${proofKindLabel[input.kind]} from ${input.description} on ${client.address}\n`);
    const startedAtMs = Date.now();
    const result = await client.prove(input.request, {
      warmup: flags.warmup,
      timeoutMs: flags.timeout,
      resubmit: flags.resubmit,
      onEvent: (event) => {
        const line = describe(event, startedAtMs);
        if (line) io.stderr.write(`  ${line}\n`);
      },
    });
    const written =
      flags.out === undefined ? undefined : await writeFileAtomic(flags.out, result.proof, io, "--out");
    printResult(io, flags, result, written);
  } finally {
    await client.close();
  }
}

/** `cuzkit prove`: one proof through the resilient client; writes the proof bytes. */
export function createProveCommand(io: CliIO): Command {
  const command = new Command("prove")
    .description(
      "prove one proof and write the proof bytes (submit, then await with resume after a broken connection)",
    )
    .option("--addr <address>", addrHelp)
    .option("--out <file>", "write the proof bytes here (written whole or not at all)");
  addProofInputOptions(command)
    .option(
      "--warmup",
      `first proof after a start: use the long warmup deadline (${durationText(defaultDeadlines.warmupProofMs)})`,
    )
    .option(
      "--timeout <duration>",
      `deadline of the whole proof, e.g. 45m (default ${durationText(defaultDeadlines.proofMs)}, warmup ${durationText(defaultDeadlines.warmupProofMs)})`,
      durationOption("--timeout", "45m"),
    )
    .option(
      "--resubmit <n>",
      `resubmit up to N times if the daemon restarts and loses the job (default: ${Object.entries(
        defaultResubmit,
      )
        .map(([kind, n]) => `${n} for ${kind}`)
        .join(", ")})`,
      wholeNumberOption("--resubmit", 0, "1"),
    )
    .option(
      "--restart-wait <duration>",
      `how long to wait for a daemon that refuses connections to be restarted before failing, e.g. 2m under a supervisor (default ${durationText(defaultRestartWaitMs)})`,
      durationOption("--restart-wait", "2m"),
      defaultRestartWaitMs,
    );
  addStuckOptions(command)
    .option("--json", "print the result as JSON (proof as hex)")
    .option("--verbose", "log every client step")
    .addHelpText(
      "after",
      `
Examples:
  cuzkit prove --addr 127.0.0.1:9820 --c1 /data/32gbench/c1.json --out proof.bin
  cuzkit prove --addr unix:///run/curio/cuzk.sock --kind winning --vanilla winning.json --randomness 00..00
  CUZK_ADDR=127.0.0.1:9820 cuzkit prove --synthetic --json     # against \`cuzkit sim\``,
    )
    .action((flags: ProveFlags) => runProve(io, flags));
  return command;
}

// What `cuzkit prove` does once its flags are parsed: build the input, prove through the
// resilient client with its steps on stderr, write the proof and print the result.
import { createCuzkClient, type ProofResult, type ProveEvent } from "@cuzkit/client";
import { createConsoleLogger, proofKindLabel } from "@cuzkit/core";
import { resolveAddress, secondsText, writeFileAtomic } from "../common.js";
import type { CliIO } from "../io.js";
import { durationText } from "../parse.js";
import { buildProofInput } from "../proof-input.js";
import { stuckOption } from "../stuck-flags.js";
import { checkWritablePath } from "../writable-path.js";
import type { ProveFlags } from "./prove.js";

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
export async function runProve(io: CliIO, flags: ProveFlags): Promise<void> {
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

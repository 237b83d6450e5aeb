import { create } from "@bufbuild/protobuf";
import { CuzkitError } from "@cuzkit/core";
import {
  AwaitProofResponseSchema,
  GetStatusResponseSchema,
  SubmitProofRequestSchema,
  SubmitProofResponseSchema,
} from "@cuzkit/proto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  ConnectionLostError,
  clientErrorCodes,
  DaemonFrozenError,
  DaemonUnavailableError,
  DeadlineExceededError,
  JobNotFoundError,
} from "./errors.js";
import { type ProveDeps, proveWithResume } from "./prove.js";
import { type StatusSample, statusSample } from "./recovery.js";
import { normalizeStatus } from "./status.js";
import { manualTimeOptions } from "./test-support.js";

// A property over scripted fault sequences, against a model of the daemon that follows its
// documented behaviour (jobs survive a broken call, vanish in a restart; no deduplication;
// results kept for the process lifetime). Whatever the faults, prove never reuses a request
// id, never has two attempts of the same work on the daemon at once, always ends in a result
// or a typed error, and an error while an attempt may still run names it and is not retryable.

/** What happens to the next call the client makes. */
type Fault =
  | "ok"
  | "reset-before-upload" // the connection breaks before the request body is written
  | "reset-after-upload" // ... after the daemon took the request
  | "refuse" // nothing accepts the connection (a tunnel down, or no process)
  | "silent" // the daemon is frozen for this call
  | "restart" // the process restarts (every job lost), the call breaks
  | "fail"; // the proof fails

const faults: Fault[] = [
  "ok",
  "reset-before-upload",
  "reset-after-upload",
  "refuse",
  "silent",
  "restart",
  "fail",
];

const proofTimeMs = 2_000;

function modelDaemon(script: Fault[]) {
  const { clock, options } = manualTimeOptions(0.377);
  let startedAtMs = clock.now() - 3_600_000;
  let completed = 0;
  /** Job id -> running or done, for the current process. */
  const jobs = new Map<string, "running" | "done">();
  const submittedIds: string[] = [];
  const violations: string[] = [];
  const next = (): Fault => script.shift() ?? "ok";
  const status = () =>
    normalizeStatus(
      create(GetStatusResponseSchema, {
        uptimeSeconds: BigInt(Math.floor((clock.now() - startedAtMs) / 1000)),
        totalProofsCompleted: BigInt(completed),
      }),
    );
  const restart = () => {
    jobs.clear();
    completed = 0;
    startedAtMs = clock.now();
  };

  let last: StatusSample | undefined;
  const deps: ProveDeps = {
    options,
    address: "127.0.0.1:9820",
    async status(call) {
      const sentAt = clock.now();
      const fault = next();
      if (fault === "refuse") throw new DaemonUnavailableError("refused");
      if (fault === "silent") {
        clock.advance(call.timeoutMs);
        throw new DeadlineExceededError("probe timed out");
      }
      if (fault === "reset-before-upload" || fault === "reset-after-upload")
        throw new ConnectionLostError("reset");
      if (fault === "restart") restart();
      const s = status();
      last = statusSample(s, sentAt, clock.now());
      return s;
    },
    async submit(request, call) {
      const id = request.requestId;
      if (submittedIds.includes(id)) violations.push(`request id ${id} sent twice`);
      const fault = next();
      if (fault === "refuse") throw new DaemonUnavailableError("refused");
      if (fault === "reset-before-upload") throw new ConnectionLostError("reset during upload");
      if (fault === "silent") {
        clock.advance(25_000);
        throw new DaemonFrozenError("PING timed out");
      }
      call.upload.sentBytes = 1;
      call.upload.complete = true;
      submittedIds.push(id);
      if (fault === "restart") {
        restart();
        throw new ConnectionLostError("reset by the restart");
      }
      const running = submittedIds.filter((other) => other !== id && jobs.get(other) === "running");
      if (running.length > 0) violations.push(`${id} submitted while ${running.join(", ")} still runs`);
      jobs.set(id, "running");
      if (fault === "reset-after-upload") throw new ConnectionLostError("reset after the upload");
      return create(SubmitProofResponseSchema, { jobId: id });
    },
    async awaitJob(jobId, call) {
      const fault = next();
      if (fault === "refuse") throw new DaemonUnavailableError("refused");
      if (fault === "restart") {
        restart();
        throw new ConnectionLostError("reset by the restart");
      }
      if (!jobs.has(jobId)) throw new JobNotFoundError(`job not found: ${jobId}`);
      if (fault === "silent") {
        clock.advance(25_000);
        throw new DaemonFrozenError("PING timed out");
      }
      if (fault === "reset-before-upload" || fault === "reset-after-upload") {
        clock.advance(100);
        throw new ConnectionLostError("reset");
      }
      if (call.timeoutMs < proofTimeMs) {
        clock.advance(call.timeoutMs);
        throw new DeadlineExceededError("deadline exceeded (AwaitProof)");
      }
      clock.advance(proofTimeMs);
      jobs.set(jobId, "done");
      if (fault === "fail") return create(AwaitProofResponseSchema, { status: 2, errorMessage: "injected" });
      completed += 1;
      return create(AwaitProofResponseSchema, { status: 1, proof: new Uint8Array(192), totalMs: 2000n });
    },
    lastStatus: () => last,
  };
  return { deps, jobs, submittedIds, violations };
}

const requests = {
  porep: create(SubmitProofRequestSchema, {
    proofKind: 1,
    vanillaProof: new Uint8Array(64),
    minerId: 1000n,
    sectorNumber: 7n,
  }),
  wpost: create(SubmitProofRequestSchema, {
    proofKind: 3,
    vanillaProofs: [new Uint8Array(64)],
    randomness: new Uint8Array(32),
    minerId: 1000n,
  }),
};

describe("prove under scripted faults (property)", () => {
  it("never reuses an id, never runs two attempts at once, and always ends in a result or a typed error", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom(...faults), { maxLength: 14 }),
        fc.constantFrom("porep" as const, "wpost" as const),
        fc.constantFrom(undefined, 10 * 60_000),
        async (script, kind, timeoutMs) => {
          const model = modelDaemon([...script]);
          const outcome = await proveWithResume(
            model.deps,
            requests[kind],
            timeoutMs ? { timeoutMs } : {},
          ).then(
            (result) => ({ result }),
            (error: unknown) => ({ error }),
          );
          expect(model.violations).toEqual([]);
          expect(new Set(model.submittedIds).size).toBe(model.submittedIds.length);
          if ("result" in outcome) {
            expect(model.jobs.get(outcome.result.jobId)).toBe("done");
            expect(outcome.result.proof.byteLength).toBe(192);
            return;
          }
          const { error } = outcome;
          expect(CuzkitError.is(error)).toBe(true);
          expect(clientErrorCodes).toContain((error as CuzkitError).code);
          // Truthful: an attempt still running on the daemon is named, and the error does not
          // invite a retry that would run the work twice.
          const running = model.submittedIds.filter((id) => model.jobs.get(id) === "running");
          for (const id of running) {
            expect((error as { jobId?: string }).jobId).toBe(id);
            expect((error as CuzkitError).retryable).toBe(false);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

import { describe, expect, it } from "vitest";
import { DaemonInternalError } from "./errors.js";
import { parseDaemonMetrics } from "./metrics.js";

// As the daemon writes it (service.rs get_metrics; docs/daemon-facts.md section 1).
const text = `# HELP cuzk_proofs_completed_total Total proofs completed
# TYPE cuzk_proofs_completed_total counter
cuzk_proofs_completed_total 14
# HELP cuzk_proofs_failed_total Total proofs failed
# TYPE cuzk_proofs_failed_total counter
cuzk_proofs_failed_total 2
# HELP cuzk_uptime_seconds Daemon uptime
# TYPE cuzk_uptime_seconds gauge
cuzk_uptime_seconds 7260
# HELP cuzk_queue_depth Scheduler queue depth
# TYPE cuzk_queue_depth gauge
cuzk_queue_depth 0
# TYPE cuzk_proofs_completed counter
cuzk_proofs_completed{proof_kind="porep_c2"} 10
cuzk_proofs_completed{proof_kind="winning_post"} 4
# TYPE cuzk_proofs_failed counter
cuzk_proofs_failed{proof_kind="porep_c2"} 2
# TYPE cuzk_proof_duration_seconds summary
cuzk_proof_duration_seconds_count{proof_kind="porep_c2"} 10
cuzk_proof_duration_seconds_sum{proof_kind="porep_c2"} 425.5
cuzk_proof_duration_seconds_count{proof_kind="winning_post"} 4
cuzk_proof_duration_seconds_sum{proof_kind="winning_post"} 3.2
# TYPE cuzk_running_jobs gauge
cuzk_running_jobs 2
# TYPE cuzk_gpu_workers gauge
cuzk_gpu_workers 4
`;

describe("parseDaemonMetrics", () => {
  it("reads the daemon's metrics into typed values", () => {
    const m = parseDaemonMetrics(text);
    expect(m).toMatchObject({
      proofsCompletedTotal: 14,
      proofsFailedTotal: 2,
      uptimeSeconds: 7260,
      queueDepth: 0,
      runningJobs: 2,
      gpuWorkers: 4,
    });
    expect(m.byKind.porep).toEqual({
      completed: 10,
      failed: 2,
      durationCount: 10,
      durationSumSeconds: 425.5,
      meanDurationSeconds: 42.55,
    });
    expect(m.byKind.winning).toMatchObject({ completed: 4, failed: undefined, durationCount: 4 });
    expect(m.byKind.winning?.meanDurationSeconds).toBeCloseTo(0.8);
    expect(m.byKind.snap).toBeUndefined();
    expect(m.families.length).toBeGreaterThan(5);
    expect(m.text).toBe(text);
  });

  it("leaves metrics a daemon did not emit undefined (a fresh daemon has no summaries)", () => {
    const m = parseDaemonMetrics("# TYPE cuzk_uptime_seconds gauge\ncuzk_uptime_seconds 3\n");
    expect(m.uptimeSeconds).toBe(3);
    expect(m.proofsCompletedTotal).toBeUndefined();
    expect(m.byKind).toEqual({});
  });

  it("ignores unknown kind labels", () => {
    const m = parseDaemonMetrics(
      '# TYPE cuzk_proofs_completed counter\ncuzk_proofs_completed{proof_kind="other"} 3\n',
    );
    expect(m.byKind).toEqual({});
  });

  it("throws a typed error on malformed text", () => {
    expect(() => parseDaemonMetrics("# TYPE cuzk_uptime_seconds gauge\ncuzk_uptime_seconds{b=} 1\n")).toThrow(
      DaemonInternalError,
    );
  });

  it("reads values that are not numbers as undefined, never as 0", () => {
    expect(parseDaemonMetrics("cuzk_uptime_seconds abc\ncuzk_queue_depth \n").uptimeSeconds).toBeUndefined();
  });
});

import { describe, expect, it } from "vitest";
import { createProofCounters } from "./counters.js";
import { formatMetricsText } from "./metrics-text.js";

function samples(text: string): Map<string, number> {
  const map = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const at = line.lastIndexOf(" ");
    map.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return map;
}

describe("formatMetricsText", () => {
  it("uses the daemon's metric names and types", () => {
    const counters = createProofCounters();
    counters.record("porep", "completed", 2.5);
    counters.record("porep", "completed", 1.5);
    counters.record("winning", "failed", 0.1);
    const text = formatMetricsText({
      counters,
      uptimeSeconds: 12.7,
      queueDepth: 3,
      runningJobs: 1,
      gpuWorkers: 4,
    });
    const types = [...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => `${m[1]} ${m[2]}`);
    expect(types).toEqual([
      "cuzk_proofs_completed_total counter",
      "cuzk_proofs_failed_total counter",
      "cuzk_uptime_seconds gauge",
      "cuzk_queue_depth gauge",
      "cuzk_proofs_completed counter",
      "cuzk_proofs_failed counter",
      "cuzk_proof_duration_seconds summary",
      "cuzk_running_jobs gauge",
      "cuzk_gpu_workers gauge",
    ]);
    const values = samples(text);
    expect(values.get("cuzk_proofs_completed_total")).toBe(2);
    expect(values.get("cuzk_proofs_failed_total")).toBe(1);
    expect(values.get("cuzk_uptime_seconds")).toBe(12);
    expect(values.get("cuzk_queue_depth")).toBe(3);
    expect(values.get('cuzk_proofs_completed{proof_kind="porep_c2"}')).toBe(2);
    expect(values.get('cuzk_proofs_failed{proof_kind="winning_post"}')).toBe(1);
    expect(values.get('cuzk_proof_duration_seconds_count{proof_kind="porep_c2"}')).toBe(2);
    expect(values.get('cuzk_proof_duration_seconds_sum{proof_kind="porep_c2"}')).toBe(4);
    expect(values.has('cuzk_proof_duration_seconds_count{proof_kind="winning_post"}')).toBe(false);
    expect(values.get("cuzk_running_jobs")).toBe(1);
    expect(values.get("cuzk_gpu_workers")).toBe(4);
  });

  it("leaves the duration summary out until a proof completes", () => {
    const text = formatMetricsText({
      counters: createProofCounters(),
      uptimeSeconds: 0,
      queueDepth: 0,
      runningJobs: 0,
      gpuWorkers: 2,
    });
    expect(text).not.toContain("cuzk_proof_duration_seconds");
  });

  it("keeps only the last 1000 completions in the summary", () => {
    const counters = createProofCounters();
    for (let i = 0; i < 1005; i++) counters.record("porep", "completed", 1);
    const text = formatMetricsText({
      counters,
      uptimeSeconds: 0,
      queueDepth: 0,
      runningJobs: 0,
      gpuWorkers: 2,
    });
    expect(samples(text).get('cuzk_proof_duration_seconds_count{proof_kind="porep_c2"}')).toBe(1000);
    expect(samples(text).get("cuzk_proofs_completed_total")).toBe(1005);
  });
});

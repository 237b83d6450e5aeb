import { type CircuitId, circuitForKind, type ProofKind } from "@cuzkit/core";
import { after, type PipelineState, type SrsState, updateMemory } from "./pipeline-state.js";

// What the pipeline keeps resident per circuit: the parameters (SRS), loaded on a circuit's first
// use, and the PCE, loaded with them from an earlier run's file or extracted in the background
// after the first completed proof of the circuit.

/** Calls `ready` once `circuit`'s parameters are loaded (at once when they are; loads them on first use). */
export function ensureSrs(s: PipelineState, circuit: CircuitId, ready: () => void): void {
  const { model, scheduler } = s.deps;
  const current = s.srs.get(circuit);
  if (current?.state === "loaded") {
    current.lastUsedAt = scheduler.now();
    ready();
    return;
  }
  if (current?.state === "loading") {
    current.waiters.push(ready);
    return;
  }
  const loading: SrsState = { state: "loading", waiters: [ready] };
  s.srs.set(circuit, loading);
  s.residentBytes += model.srsBytes[circuit];
  if (s.deps.pceCached(circuit) && !s.pce.has(circuit)) {
    // A PCE file from an earlier run is loaded along with the parameters.
    s.pce.set(circuit, "resident");
    s.residentBytes += model.pceBytes[circuit];
  }
  if (!updateMemory(s)) return;
  after(s, model.srsLoadSec, () => {
    s.srs.set(circuit, { state: "loaded", lastUsedAt: scheduler.now() });
    for (const waiter of loading.waiters) if (!s.disposed) waiter();
  });
}

/**
 * Extracts the PCE of `kind`'s circuit in the background unless it is resident or being built;
 * calls `onResident` once it is resident (synthesis then runs warm).
 */
export function extractPce(s: PipelineState, kind: ProofKind, onResident: () => void): void {
  const { model } = s.deps;
  const circuit = circuitForKind[kind];
  if (s.pce.has(circuit)) return;
  s.pce.set(circuit, "extracting");
  // The PCE being built counts from the start, with the extraction's working memory on top
  // (the model's cold-start peak: PCE + transient + the next proofs' synthesis).
  s.residentBytes += model.pceBytes[circuit];
  s.transientBytes += model.pceExtractionBytes;
  if (!updateMemory(s)) return;
  after(s, model.pceExtractionSec, () => {
    s.transientBytes -= model.pceExtractionBytes;
    s.pce.set(circuit, "resident");
    updateMemory(s);
    s.deps.onPceExtracted?.(circuit);
    onResident();
  });
}

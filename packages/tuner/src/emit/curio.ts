import { stringify } from "smol-toml";
import type { Recommendation } from "../recommend.js";
import { assertEmittable, type EmitOptions, forcedNotice } from "./guard.js";
import { formatGoDuration } from "./shell.js";
import { wrapComment } from "./wrap.js";

/** Curio's default cuzk address (deps/config CuzkConfig). */
export const defaultCurioCuzkAddress = "unix:///run/curio/cuzk.sock";

/** Options of emitCurio(). */
export interface CurioEmitOptions extends EmitOptions {
  /** Curio's [Cuzk] Address. Default "unix:///run/curio/cuzk.sock". */
  address?: string | undefined;
}

/** The [Cuzk] section as Curio's config names it. */
export function curioSection(recommendation: Recommendation, address = defaultCurioCuzkAddress) {
  return {
    Address: address,
    MaxPending: recommendation.curio.maxPending,
    ProveTimeout: formatGoDuration(recommendation.curio.proveTimeoutSec),
  };
}

/**
 * The `[Cuzk]` section of Curio's config for this daemon: MaxPending = the tuned concurrency
 * plus the PoSt slots, ProveTimeout from the modelled worst-case proof time with a margin,
 * at least 30 min by default.
 * Throws UnsafeConfigError when infeasible unless `force`.
 */
export function emitCurio(recommendation: Recommendation, options: CurioEmitOptions = {}): string {
  assertEmittable(recommendation, options);
  const section = curioSection(recommendation, options.address);
  const worst = recommendation.predicted.worstCaseProofSec;
  const { postSlots } = recommendation.curio;
  const note =
    `[Cuzk] for Curio's config, written by cuzkit tune. MaxPending = ${section.MaxPending} is the tuned concurrency ` +
    `${recommendation.bench.concurrency} + ${postSlots}: Curio shares this one limiter across its PoRep, SnapDeals, WindowPoSt and WinningPoSt tasks, ` +
    `so the ${postSlots} extra slot(s) leave room for a time-critical PoSt while PoRep holds the rest (PoRep may use them when free; the daemon is sized for ${section.MaxPending}). ` +
    `ProveTimeout = ${section.ProveTimeout}: the modelled worst-case proof (${Number.isFinite(worst) ? `${Math.round(worst)} s` : "unknown"}) with a margin, ` +
    "never below 30 min unless asked: on a timeout Curio retries with the same request id, which the daemon runs again as a duplicate.";
  const forced = forcedNotice(recommendation);
  const lines = [...(forced ? wrapComment(forced) : []), ...wrapComment(note)];
  return `${lines.join("\n")}\n${stringify({ Cuzk: section })}\n`;
}

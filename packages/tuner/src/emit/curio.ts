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
  address?: string;
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
 * The `[Cuzk]` section of Curio's config for this daemon: MaxPending from the tuned
 * concurrency, ProveTimeout from the modelled worst-case proof time with a margin.
 * Throws UnsafeConfigError when infeasible unless `force`.
 */
export function emitCurio(recommendation: Recommendation, options: CurioEmitOptions = {}): string {
  assertEmittable(recommendation, options);
  const section = curioSection(recommendation, options.address);
  const worst = recommendation.predicted.worstCaseProofSec;
  const note =
    `[Cuzk] for Curio's config, written by cuzkit tune. MaxPending = ${section.MaxPending} is the tuned concurrency ` +
    "(Curio shares it across its PoRep, SnapDeals, WindowPoSt and WinningPoSt tasks), so Curio never queues more than the daemon was sized for; " +
    `ProveTimeout = ${section.ProveTimeout} is the modelled worst-case proof (${Number.isFinite(worst) ? `${Math.round(worst)} s` : "unknown"}, ` +
    `the last of the first ${section.MaxPending} after a cold start) with a margin, at least 10 min, so a healthy first proof is not timed out.`;
  const forced = forcedNotice(recommendation);
  const lines = [...(forced ? wrapComment(forced) : []), ...wrapComment(note)];
  return `${lines.join("\n")}\n${stringify({ Cuzk: section })}\n`;
}

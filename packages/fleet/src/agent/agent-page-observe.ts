import { logTailDefaults } from "../defaults.js";
import type { LogsBody, ThroughputBody } from "../protocol/requests.js";
import { type AgentPageContext, enterPhase, notifyListeners, withoutRaw } from "./agent-page-state.js";
import type { AgentReporter } from "./reporter.js";

// The reporter the local page wraps around the agent's own: each call goes on to the real
// reporter first, then what it said lands in the page's state.

/** Wraps `reporter` so every step it reports reaches the page's `context` too. */
export function observeReporter(context: AgentPageContext, reporter: AgentReporter): AgentReporter {
  const { clock, view } = context;
  return {
    kind: reporter.kind,
    async register(body) {
      const instructions = await reporter.register(body);
      context.minProofsPerHour = instructions.minProofsPerHour;
      enterPhase(context, "registered", "register");
      return instructions;
    },
    async phase(body) {
      await reporter.phase(body);
      enterPhase(context, body.phase, "phase");
    },
    async heartbeat(body) {
      view.lastHeartbeatAt = clock.now();
      if (body.daemonStatus !== undefined)
        view.daemonStatus = { at: clock.now(), status: withoutRaw(body.daemonStatus) };
      return reporter.heartbeat(body);
    },
    async failure(body) {
      await reporter.failure(body);
      enterPhase(context, "failed", "failure", `${body.phase}: ${body.code}: ${body.message}`);
    },
    async report(body) {
      const answer = await reporter.report(body);
      view.proofsPerHour = body.proofsPerHour;
      view.benchmark = {
        at: clock.now(),
        verdict: body.verdict,
        proofsPerHour: body.proofsPerHour,
        minProofsPerHour: context.minProofsPerHour,
        // The numbers and flags of each proof only, as the fleet's page shows them.
        proofs: body.proofs.map((p) => ({
          index: p.index,
          warmup: p.warmup,
          ok: p.ok,
          wallMs: p.wallMs ?? null,
          code: p.code ?? null,
        })),
      };
      enterPhase(context, answer.keep ? "serving" : "rejected", "report", answer.reason);
      return answer;
    },
    throughput:
      reporter.throughput === undefined
        ? undefined
        : (body: ThroughputBody) => reporter.throughput?.(body) ?? Promise.resolve(),
    logs:
      reporter.logs === undefined
        ? undefined
        : async (body: LogsBody) => {
            await reporter.logs?.(body);
            const receivedAt = clock.now();
            const { logLines } = context;
            logLines.push(...body.lines.map((line) => ({ ...line, receivedAt })));
            logLines.splice(0, Math.max(0, logLines.length - logTailDefaults.storeKeepLines));
            notifyListeners(context);
          },
  };
}

// Library errors carry hints in the library's terms ("use waitForReady", "prove with resubmit",
// "the apiKey option"). On the command line the same advice names the flag or variable that
// does it. The mapping is by the error's stable code, so a reworded library hint keeps working.
import type { CuzkitError } from "@cuzkit/core";

/** A hint for CLI users, by error code; a function when it depends on the error. */
const cliHints: Readonly<Record<string, string | ((error: Pick<CuzkitError, "code" | "hint">) => string)>> = {
  DAEMON_UNAVAILABLE:
    "after a start the daemon can take minutes to load parameters before it listens: check --addr (or CUZK_ADDR), " +
    "run `cuzkit status` until it answers, or let `cuzkit bench` wait for it (--ready-timeout)",
  DAEMON_RESTARTED:
    "the daemon restarted and lost the job: run again, or pass --resubmit N to resubmit automatically when it does",
  PROOF_FAILED: (error) =>
    /resubmit/.test(error.hint)
      ? "run again, or pass --resubmit N to resubmit automatically; if the daemon was OOM-killed, lower its concurrency (`cuzkit tune`)"
      : error.hint,
  C1_INVALID: (error) =>
    `${/SectorSize|registered proof/.test(error.hint) ? `${error.hint}; ` : ""}` +
    "check the file given to --c1: it must be the C1 output wrapper Curio writes " +
    '({"SectorNum", "Phase1Out", "SectorSize"}, about 51 MB for 32 GiB); for SnapDeals or PoSt give --kind and --vanilla',
  DEADLINE_EXCEEDED:
    "the job may still be running on the daemon (do not submit it again while it does); raise the deadline with --timeout (prove) or --proof-timeout (bench)",
  VAST_NO_API_KEY:
    "set VAST_API_KEY, or save the key with `vastai set api-key KEY` (~/.config/vastai/vast_api_key); " +
    "cuzkit takes no key on the command line, where other users could read it in the process list",
  VAST_RATE_LIMITED:
    "Vast.ai limits calls per endpoint and key; wait a few seconds and run the command again",
  VAST_TIMEOUT: "Vast.ai did not answer in time; run the command again",
  VAST_LOGS_TIMEOUT: "the logs were not ready in time; run again, or wait longer with --timeout SECONDS",
  VAST_WAIT_TIMEOUT:
    "the instance is still starting (large images take long): check `cuzkit vast show ID`, wait longer with --wait-minutes, or destroy it and rent another",
};

/** The library's words that only make sense in code, removed from messages shown on the command line. */
const libraryOnlyWords: readonly [RegExp, string][] = [[/apiKey option, /g, ""]];

/** The hint to print for `error` on the command line. */
export function cliHint(error: Pick<CuzkitError, "code" | "hint">): string {
  const mapped = cliHints[error.code];
  if (mapped === undefined) return error.hint;
  return typeof mapped === "function" ? mapped(error) : mapped;
}

/** The message to print for `error` on the command line. */
export function cliMessage(error: Pick<CuzkitError, "message">): string {
  return libraryOnlyWords.reduce(
    (text, [pattern, replacement]) => text.replace(pattern, replacement),
    error.message,
  );
}

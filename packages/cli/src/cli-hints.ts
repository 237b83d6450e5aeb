// Library errors carry hints in the library's terms ("use waitForReady", "prove with resubmit",
// "the apiKey option"). On the command line the same advice names the flag, variable or command
// that does it. The mapping is by the error's stable code (Vast.ai errors, which share ABORTED
// and DEADLINE_EXCEEDED with the daemon client, by their class), so a reworded library hint keeps
// working; each table lists every code of its package, so a new code cannot be forgotten.
import type { ClientErrorCode } from "@cuzkit/client";
import type { CoreErrorCode, CuzkitError } from "@cuzkit/core";
import type { FleetErrorCode } from "@cuzkit/fleet";
import { VastApiError, type VastErrorCode } from "@cuzkit/vast";

type HintSource = Pick<CuzkitError, "code" | "hint">;
/** A hint for CLI users: fixed text, or made from the library's hint. */
type CliHintRule = string | ((error: HintSource) => string);

/** The library's hint is already in terms that hold on the command line (after the phrase rewrites below). */
const same: CliHintRule = (error) => error.hint;

/** Request fields named in the client's hints, and the flag that sets each. */
const requestFieldFlags: readonly [RegExp, string][] = [
  [/\bcommROld\b/g, "--comm-r-old"],
  [/\bcommRNew\b/g, "--comm-r-new"],
  [/\bcommDNew\b/g, "--comm-d-new"],
  [/\brandomness\b/g, "--randomness"],
  [/\bsectorNumber\b/g, "--sector-num"],
  [/\bminerId\b/g, "--miner-id"],
  [/\bpartitionIndex\b/g, "--partition"],
  [/\bregisteredProof\b/g, "--registered-proof"],
];

const rewriteFields = (hint: string) =>
  requestFieldFlags.reduce((text, [pattern, flag]) => text.replace(pattern, flag), hint);

/** Hints of the daemon client (and core), by code. */
const daemonHints: Readonly<Record<ClientErrorCode | CoreErrorCode, CliHintRule>> = {
  DAEMON_UNAVAILABLE: (error) =>
    /may have died/.test(error.hint)
      ? // It answered, then went away mid-proof: died, or a tunnel dropped; not a slow start.
        `${error.hint}; under a supervisor that restarts it, give prove a longer --restart-wait (e.g. 2m)`
      : "after a start the daemon can take minutes to load parameters before it listens: check --addr (or CUZK_ADDR), " +
        "run `cuzkit status` until it answers, or let `cuzkit bench` wait for it (--ready-timeout)",
  CONNECTION_LOST: same,
  DAEMON_RESTARTED:
    "the daemon restarted and lost the job: run again, or pass --resubmit N to resubmit automatically when it does",
  DAEMON_FROZEN: same,
  DAEMON_STUCK:
    "the daemon answers but finished nothing for longer than the proof should take: check its log for the job id and " +
    "`nvidia-smi` on the host, and restart the daemon if it stays so (its jobs are lost then; run again after). The job " +
    "was not resubmitted. If proofs on this machine are legitimately slower, raise --stuck-after (e.g. 45m) or --stuck-margin",
  LOCAL_TRANSPORT:
    "this machine's own HTTP/2 connection to the daemon failed (not the daemon); run the command again",
  REQUEST_ID_REUSED:
    "a request id was about to be sent twice, which the daemon would run twice; run the command again (each attempt gets a fresh id)",
  PROOF_FAILED: (error) =>
    /resubmit/.test(error.hint)
      ? "run again, or pass --resubmit N to resubmit automatically; if the daemon was OOM-killed, lower its concurrency (`cuzkit tune`)"
      : error.hint,
  DEADLINE_EXCEEDED: (error) =>
    /nothing is running/.test(error.hint)
      ? "nothing is running on the daemon: raise the deadline with --timeout (prove) or --proof-timeout (bench) and run again"
      : /never reached the daemon/.test(error.hint)
        ? "the request never reached the daemon, so running again is safe; a link this slow needs the daemon closer (a faster link)"
        : "the job may still be running on the daemon (do not submit it again while it does); raise the deadline with --timeout (prove) or --proof-timeout (bench)",
  INVALID_REQUEST: (error) => rewriteFields(error.hint),
  PAYLOAD_TOO_LARGE:
    "the daemon accepts at most 128 MiB per message: check the file given to --c1 or --vanilla (a 32 GiB PoRep C1 is about 51 MB)",
  JOB_NOT_FOUND:
    "the daemon keeps jobs only in memory and no longer has this one (it restarted): run again, or pass --resubmit N",
  ABORTED:
    "interrupted; the daemon cannot cancel a proof, so one already submitted keeps running there (see `cuzkit status`)",
  INVALID_ADDRESS:
    "give --addr (or CUZK_ADDR) as unix:///run/curio/cuzk.sock, 127.0.0.1:9820, [::1]:9820, localhost:9820 or http://127.0.0.1:9820",
  DAEMON_INTERNAL: same,
  INTERNAL: same,
  INVALID_INPUT: same,
  C1_INVALID: (error) =>
    `${/SectorSize|registered proof|128 MiB/.test(error.hint) ? `${error.hint}; ` : ""}` +
    "check the file given to --c1: it must be the C1 output wrapper Curio writes " +
    '({"SectorNum", "Phase1Out", "SectorSize"}, about 51 MB for 32 GiB); for SnapDeals or PoSt give --kind and --vanilla',
};

/** Hints of the Vast.ai client, by code. */
const vastHints: Readonly<Record<VastErrorCode, CliHintRule>> = {
  ABORTED:
    "interrupted before Vast.ai answered; run `cuzkit vast instances` to see what a rent or destroy did",
  VAST_AUTH:
    "check the API key (wrong, revoked, or missing a permission such as instance_write): set VAST_API_KEY, or save it " +
    "with `vastai set api-key KEY`; cuzkit takes no key on the command line",
  VAST_BAD_REQUEST: same,
  VAST_CREATE_UNCERTAIN: (error) => {
    const label = /label: "([^"]+)"/.exec(error.hint)?.[1];
    return (
      `the rental may or may not have happened: check with \`cuzkit vast instances${label ? ` --label ${label}` : ""}\` ` +
      "before renting again, and destroy any duplicate"
    );
  },
  VAST_DUPLICATE_RENT: (error) => {
    const id = /destroyInstance\((\d+)\)/.exec(error.hint)?.[1];
    return id === undefined
      ? "this offer is already rented by you: `cuzkit vast instances` lists it; use it, or destroy it first"
      : `this offer is already rented as instance ${id}: use it, or destroy it first (\`cuzkit vast destroy ${id}\`)`;
  },
  VAST_ENDPOINT_GONE: "Vast.ai retired this endpoint; upgrade cuzkit",
  VAST_INSTANCE_FAILED:
    "destroy the instance (`cuzkit vast destroy ID`) and rent another offer; `cuzkit vast show ID` says why it failed",
  VAST_INSUFFICIENT_CREDIT: same,
  VAST_LOGS_TIMEOUT: "the logs were not ready in time; run again, or wait longer with --timeout SECONDS",
  VAST_MALFORMED_RESPONSE: same,
  VAST_NETWORK:
    "check the network and VAST_URL (unset, it is https://console.vast.ai); run the command again",
  VAST_NOT_FOUND:
    "check the id; the instance may have been destroyed (list yours with `cuzkit vast instances`)",
  VAST_NO_API_KEY:
    "set VAST_API_KEY, or save the key with `vastai set api-key KEY` (~/.config/vastai/vast_api_key); " +
    "cuzkit takes no key on the command line, where other users could read it in the process list",
  VAST_OFFER_GONE:
    "the offer was rented or withdrawn: search again (`cuzkit vast offers`) and pick another; do not retry the same offer",
  VAST_RATE_LIMITED:
    "Vast.ai limits calls per endpoint and key; wait a few seconds and run the command again",
  VAST_SERVER_ERROR: (error) => error.hint.replace("upgrade @cuzkit/vast", "upgrade cuzkit"),
  DEADLINE_EXCEEDED: "Vast.ai did not answer in time; run the command again",
  VAST_UNEXPECTED_STATUS:
    "check VAST_URL (unset, it is https://console.vast.ai; paths keep their trailing slashes)",
  VAST_UNSUCCESSFUL: same,
  VAST_WAIT_TIMEOUT:
    "the instance is still starting (large images take long): check `cuzkit vast show ID`, wait longer with --wait-minutes, or destroy it and rent another",
};

/**
 * Hints of the fleet, by code. The fleet is run from `cuzkit fleet` and `cuzkit agent`, so its
 * own hints already name those commands' flags; the table keeps every code in view.
 */
const fleetHints: Readonly<Record<FleetErrorCode, CliHintRule>> = {
  FLEET_TRANSITION_REFUSED: same,
  FLEET_INSTANCE_NOT_FOUND: same,
  FLEET_INSTANCE_NOT_LIVE: same,
  FLEET_BUDGET_EXCEEDED: same,
  FLEET_STORE: same,
  FLEET_OFFER_REFUSED: same,
  FLEET_CONFIG: same,
  FLEET_AGENT_REFUSED: same,
  FLEET_MANAGER_UNREACHABLE: same,
  FLEET_LEASE_HELD: same,
  FLEET_LEASE_LOST: same,
  FLEET_MANAGER_URL: same,
  FLEET_CURIO_DB: same,
  FLEET_CURIO_NODE: same,
  FLEET_LOG_TAIL_TOO_LARGE: same,
  PARAMS_COMMAND_FAILED: "the --params-command exited non-zero; run it by hand on the machine to see why",
  NO_SAFE_CONFIG:
    "the tuner found no safe daemon config for this machine: `cuzkit tune` on it says what it lacks",
  WARMUP_FAILED: same,
};

/** Hints of the tuner, the simulator and the bench's daemon supervision, by code. */
const toolHints: Readonly<Record<string, CliHintRule>> = {
  UNSAFE_CONFIG: (error) =>
    error.hint
      .replace(/force: true/g, "--force")
      .replace(/the other daemon dialect( \(the dialect option\))?/g, "the other --dialect")
      .replace(/a lighter workload/g, "a lighter --workload"),
  C1_PARSE_FAILED:
    "check the file given to --c1: it must be the C1 output wrapper Curio writes " +
    '({"SectorNum", "Phase1Out", "SectorSize"}); against `cuzkit sim`, --synthetic sends a small one',
  SIM_LISTEN_FAILED: same,
  SIM_STOPPED: "the simulated daemon stopped; start `cuzkit sim` again",
  DAEMON_START_FAILED: same,
  ADDRESS_IN_USE:
    "stop the other daemon (or the old container) first, or give the spawned daemon another --addr",
  DAEMON_NOT_OURS: "stop the other daemon first, or give the spawned daemon another --addr",
};

/** Daemon, core, fleet and tool codes do not overlap, so one table serves them all. */
const otherHints: Readonly<Record<string, CliHintRule>> = { ...toolHints, ...fleetHints, ...daemonHints };

/** Library phrases inside hints that pass through (the job-id advice), and their command-line words. */
const libraryPhrases: readonly [RegExp, string][] = [
  [
    /if it answers again, awaitProof\("([^"]+)"\) tells whether the job survived \(NOT_FOUND: it did not\)/g,
    "if it answers again, `cuzkit status` shows whether job $1 still runs",
  ],
  [/wait for it with awaitProof\("([^"]+)"\)/g, "`cuzkit status` shows it while it runs (job $1)"],
  [/do not submit the same request id again/g, "do not run the same proof again while it does"],
  [/@cuzkit\/tuner picks values that fit the machine/g, "`cuzkit tune` picks values that fit the machine"],
  [/ \(prove\(request, \{ resubmit: true \}\)\)/g, " (pass --resubmit N)"],
];

/** The words of the libraries' API that mean nothing on the command line; cliHint never returns them. */
export const libraryOnlyWords =
  /waitForReady|awaitProof|resubmit: true|prove\(|timeoutMs|pollTimeoutMs|minIntervalMs|submitPerMiBMs|apiKey|baseUrl|allowReusedId|warmup: true|listInstances|searchOffers|destroyInstance|showInstance|waitForStatus|porepRequest|createSyntheticC1|force: true|dialect option|@cuzkit\//;

/** The hint to print for `error` on the command line. */
export function cliHint(error: HintSource): string {
  const isVast = error instanceof VastApiError || error.code.startsWith("VAST_");
  const table: Readonly<Record<string, CliHintRule>> = isVast ? vastHints : otherHints;
  const rule = table[error.code] ?? same;
  const hint = typeof rule === "function" ? rule(error) : rule;
  return libraryPhrases.reduce((text, [pattern, replacement]) => text.replace(pattern, replacement), hint);
}

/** The library's words that only make sense in code, removed from messages shown on the command line. */
const libraryOnlyMessageWords: readonly [RegExp, string][] = [[/apiKey option, /g, ""]];

/** The message to print for `error` on the command line. */
export function cliMessage(error: Pick<CuzkitError, "message">): string {
  return libraryOnlyMessageWords.reduce(
    (text, [pattern, replacement]) => text.replace(pattern, replacement),
    error.message,
  );
}

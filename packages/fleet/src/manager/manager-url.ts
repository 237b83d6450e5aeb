import { get as httpGet } from "node:http";
import { get as httpsGet } from "node:https";
import { FleetManagerUrlError } from "../errors.js";

/** The path of the manager's health check; it answers `{ ok: true, nonce }` with the serving process's nonce. */
export const managerHealthPath = "/v1/health";

/** How long the health check of a stored manager URL waits for an answer, ms. */
export const managerHealthTimeoutMs = 5_000;

const flagHint =
  "pass --manager-url https://HOST:PORT, the manager's address reachable from the rented machines";
const loopbackOverride = "--allow-loopback-manager-url";

/** The URL's host without IPv6 brackets, or undefined when it is not a URL. */
function hostOf(url: string): string | undefined {
  try {
    return new URL(url).hostname.replace(/^\[(.*)\]$/, "$1").toLowerCase();
  } catch {
    return undefined;
  }
}

/**
 * True when agents on a rented machine can never reach the URL: a loopback host (127.0.0.0/8,
 * ::1, localhost) or an unspecified one (0.0.0.0, ::), which are listen addresses, not addresses.
 */
export function isLoopbackUrl(url: string): boolean {
  const host = hostOf(url);
  if (host === undefined) return false;
  return (
    host === "localhost" ||
    host.endsWith(".localhost") ||
    host === "::1" ||
    host === "::" ||
    host === "0.0.0.0" ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)
  );
}

/** What renting needs of the config to hand agents a URL. */
export interface RentingUrlConfig {
  /** The URL agents reach the manager at. */
  managerUrl: string | undefined;
  /** The test/dev override: a loopback URL is allowed (agents on this machine). Default false. */
  allowLoopbackManagerUrl?: boolean | undefined;
}

/**
 * The URL renting hands agents: set, and not loopback unless the test/dev override is on. Throws
 * FleetManagerUrlError otherwise, before any row is written.
 */
export function requireRentingManagerUrl(config: RentingUrlConfig): string {
  const url = config.managerUrl;
  if (url === undefined) {
    throw new FleetManagerUrlError(
      "renting needs the URL agents on the rented machines reach the manager at",
      {
        hint: flagHint,
      },
    );
  }
  if (isLoopbackUrl(url) && config.allowLoopbackManagerUrl !== true) {
    throw new FleetManagerUrlError(
      `the manager URL ${url} is a loopback or listen address: agents on rented machines can never reach it`,
      {
        hint: `${flagHint} (${loopbackOverride} is for tests and local simulations only)`,
      },
    );
  }
  return url;
}

/** Options of {@link verifyManagerUrl}. */
export interface VerifyManagerUrlOptions {
  /** The stored URL to check. */
  url: string;
  /** The nonce of the manager that must answer there: this process's server, or the one `fleet serve` recorded. Undefined: none recorded. */
  expectedNonce: string | undefined;
  /** Reads the health answer (resolves with the JSON body of a 200, throws otherwise). Injected for tests. Default {@link fetchHealth}. */
  fetchHealth?: ((url: string, timeoutMs: number) => Promise<unknown>) | undefined;
  /** How long the check waits, ms. Default {@link managerHealthTimeoutMs}. */
  timeoutMs?: number | undefined;
}

/**
 * Checks that a stored manager URL answers the health check with the expected manager's nonce,
 * so a stale URL (a dead port, another manager, an old address) is refused before it is handed
 * to a rented machine. Throws FleetManagerUrlError saying what answered.
 */
export async function verifyManagerUrl(options: VerifyManagerUrlOptions): Promise<void> {
  const { url, expectedNonce } = options;
  const refuse = (why: string, cause?: unknown) =>
    new FleetManagerUrlError(`the stored manager URL ${url} ${why}`, {
      hint: `${flagHint}; a stored URL is used only while the manager serving this store answers there`,
      cause,
    });
  if (expectedNonce === undefined) {
    throw refuse(
      "cannot be checked: no manager serving this store recorded itself (is `cuzkit fleet serve` running?)",
    );
  }
  const healthUrl = `${url.replace(/\/+$/, "")}${managerHealthPath}`;
  let body: unknown;
  try {
    body = await (options.fetchHealth ?? fetchHealth)(healthUrl, options.timeoutMs ?? managerHealthTimeoutMs);
  } catch (error) {
    throw refuse(`did not answer its health check (${(error as Error).message})`, error);
  }
  const nonce = (body as { nonce?: unknown } | null)?.nonce;
  if (nonce !== expectedNonce) {
    throw refuse("is answered by another manager, not the one serving this store");
  }
}

/**
 * GETs a health URL on a connection of its own (`Connection: close`, no redirects): a pooled
 * keep-alive socket would hold the checked server's close up until its idle timeout.
 */
export function fetchHealth(url: string, timeoutMs: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const get = url.startsWith("https:") ? httpsGet : httpGet;
    const request = get(url, { agent: false }, (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      response.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size > 64 * 1024) request.destroy(new Error("answer larger than 64 KiB"));
        else chunks.push(chunk);
      });
      response.on("end", () => {
        if (response.statusCode !== 200) {
          reject(new Error(`answered ${response.statusCode ?? "no status"}`));
          return;
        }
        try {
          resolve(JSON.parse(Buffer.concat(chunks).toString("utf8")));
        } catch {
          reject(new Error("answered something other than JSON"));
        }
      });
      response.on("error", reject);
    });
    // The whole answer within the limit, not each pause of it: a trickling answer is no answer.
    const deadline = setTimeout(
      () => request.destroy(new Error(`no answer within ${timeoutMs} ms`)),
      timeoutMs,
    );
    request.on("close", () => clearTimeout(deadline));
    request.on("error", reject);
  });
}

/** Options of {@link resolveRentingManagerUrl}. */
export interface ResolveRentingManagerUrlOptions extends Omit<VerifyManagerUrlOptions, "url"> {
  /** The `--manager-url` flag: used as given (the manager may not reach its own public address). */
  given: string | undefined;
  /** The URL kept in the store's settings: used only when it answers as the expected manager. */
  stored: string | undefined;
  /** The test/dev override {@link RentingUrlConfig.allowLoopbackManagerUrl}. Default false. */
  allowLoopback?: boolean | undefined;
}

/**
 * The URL renting may hand agents: `--manager-url` when given, else a stored one that answers the
 * health check as this store's manager; never a default. Throws FleetManagerUrlError.
 */
export async function resolveRentingManagerUrl(options: ResolveRentingManagerUrlOptions): Promise<string> {
  const url = requireRentingManagerUrl({
    managerUrl: options.given ?? options.stored,
    allowLoopbackManagerUrl: options.allowLoopback,
  });
  if (options.given === undefined) await verifyManagerUrl({ ...options, url });
  return url;
}

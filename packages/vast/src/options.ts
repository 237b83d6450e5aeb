import { homedir } from "node:os";
import {
  type Clock,
  InvalidInputError,
  type Logger,
  type Resolved,
  realSleep,
  type Sleep,
  silentLogger,
  systemClock,
  withDefaults,
} from "@cuzkit/core";
import { defaultEndpointLimits, type EndpointLimit, type VastEndpointName } from "./endpoints.js";

/** The public API host, used when neither `baseUrl` nor `VAST_URL` is set. */
export const defaultVastBaseUrl = "https://console.vast.ai";

/** Backoff for retried calls (idempotent calls only; never an instance create). */
export interface VastRetryOptions {
  /** Retries after the first attempt. Default 4 (5 attempts). */
  retries?: number | undefined;
  /** Delay before the first retry, in ms. Default 1000. */
  minDelayMs?: number | undefined;
  /** Cap on any one delay, in ms. Default 30000. */
  maxDelayMs?: number | undefined;
  /** Growth factor per retry. Default 2. */
  factor?: number | undefined;
  /** Jitter as a fraction of the delay: the delay is scaled by a random value in [1 - jitter, 1 + jitter]. Default 0.2. */
  jitter?: number | undefined;
}

/** Client-side spacing of calls, so polling a fleet does not earn 429s. */
export interface VastRateLimitOptions {
  /** Overrides for every endpoint (minIntervalMs, concurrency). Defaults: see `defaultEndpointLimits`. */
  all?: Partial<EndpointLimit> | undefined;
  /** Overrides for named endpoints; applied after `all`. */
  endpoints?: Partial<Record<VastEndpointName, Partial<EndpointLimit>>> | undefined;
}

/** Options of `createVastClient`. Every one is optional. */
export interface VastClientOptions {
  /** The API key. Default: `VAST_API_KEY`, then the CLI's key files (see README). Never put it in a URL. */
  apiKey?: string | undefined;
  /** API host. Default: `VAST_URL`, else https://console.vast.ai. */
  baseUrl?: string | undefined;
  /** Environment to read VAST_API_KEY, VAST_URL and XDG_CONFIG_HOME from. Default `process.env`. */
  env?: Record<string, string | undefined> | undefined;
  /** Home directory for the key files. Default `os.homedir()`. */
  homeDir?: string | undefined;
  /** The fetch implementation. Default `globalThis.fetch`. */
  fetch?: typeof fetch | undefined;
  /** Retry policy, or `false` for none. Defaults in VastRetryOptions. */
  retry?: VastRetryOptions | false | undefined;
  /** Per-endpoint spacing and concurrency, or `false` to disable. Defaults in `defaultEndpointLimits`. */
  rateLimit?: VastRateLimitOptions | false | undefined;
  /** Where debug/warn lines go (secrets removed). Default: silent. */
  logger?: Logger | undefined;
  /** Clock for deadlines and spacing. Default: the wall clock. */
  clock?: Clock | undefined;
  /** Sleep for backoff, spacing and polling. Default: a real timer. */
  sleep?: Sleep | undefined;
  /** Random source in [0, 1) for jitter and generated labels. Default `Math.random`. */
  random?: (() => number) | undefined;
  /** Timeout of one HTTP attempt (headers and body), in ms. Default 60000. */
  timeoutMs?: number | undefined;
  /** User-Agent header. Default `cuzkit-vast/0.1`. */
  userAgent?: string | undefined;
  /** After an ambiguous create failure, how to look the instance up by label. Defaults in `defaultCreateRecovery`. */
  createRecovery?: VastCreateRecoveryOptions | undefined;
}

/** The label look-up after an ambiguous create (network error, timeout, 5xx, unreadable answer). */
export interface VastCreateRecoveryOptions {
  /** Look-ups through the v1 list before giving up. Default 3. */
  attempts?: number | undefined;
  /** Wait before each look-up, in ms, so the server can finish the create. Default 2000. */
  delayMs?: number | undefined;
}

/** Defaults of the create recovery. */
export const defaultCreateRecovery: Readonly<Resolved<VastCreateRecoveryOptions>> = {
  attempts: 3,
  delayMs: 2000,
};

/** Every option resolved to a value. */
export interface ResolvedVastOptions {
  apiKey: string | undefined;
  baseUrl: string;
  env: Record<string, string | undefined>;
  homeDir: string;
  fetch: typeof fetch;
  retry: Resolved<VastRetryOptions> | false;
  limits: Record<VastEndpointName, EndpointLimit> | false;
  logger: Logger;
  clock: Clock;
  sleep: Sleep;
  random: () => number;
  timeoutMs: number;
  userAgent: string;
  createRecovery: Resolved<VastCreateRecoveryOptions>;
}

/** Defaults of the retry policy. */
export const defaultRetry: Readonly<Resolved<VastRetryOptions>> = {
  retries: 4,
  minDelayMs: 1000,
  maxDelayMs: 30_000,
  factor: 2,
  jitter: 0.2,
};

/** Default timeout of one HTTP attempt, in ms. */
export const defaultTimeoutMs = 60_000;

/** Fills every default in one place and checks values. Throws InvalidInputError. */
export function resolveVastOptions(options: VastClientOptions = {}): ResolvedVastOptions {
  const env = options.env ?? process.env;
  const baseUrl = normaliseBaseUrl(options.baseUrl ?? (env.VAST_URL?.trim() || defaultVastBaseUrl));
  const timeoutMs = options.timeoutMs ?? defaultTimeoutMs;
  if (!(timeoutMs > 0))
    throw new InvalidInputError(`timeoutMs must be positive, got ${timeoutMs}`, {
      hint: "give a timeout in ms, such as 60000",
    });
  let retry: Resolved<VastRetryOptions> | false = false;
  if (options.retry !== false) {
    retry = withDefaults(defaultRetry, options.retry);
    if (!Number.isInteger(retry.retries) || retry.retries < 0) {
      throw new InvalidInputError(`retry.retries must be a whole number >= 0, got ${retry.retries}`, {
        hint: "such as 4",
      });
    }
    if (retry.jitter < 0 || retry.jitter > 1) {
      throw new InvalidInputError(`retry.jitter must be within 0..1, got ${retry.jitter}`, {
        hint: "such as 0.2",
      });
    }
  }
  let limits: Record<VastEndpointName, EndpointLimit> | false = false;
  if (options.rateLimit !== false) {
    const custom = options.rateLimit ?? {};
    limits = { ...defaultEndpointLimits };
    for (const name of Object.keys(limits) as VastEndpointName[]) {
      const merged = withDefaults(withDefaults(limits[name], custom.all), custom.endpoints?.[name]);
      if (!(merged.concurrency >= 1) || !(merged.minIntervalMs >= 0)) {
        throw new InvalidInputError(
          `bad rate limit for ${name}: concurrency ${merged.concurrency}, minIntervalMs ${merged.minIntervalMs}`,
          { hint: "concurrency must be >= 1 and minIntervalMs >= 0" },
        );
      }
      limits[name] = merged;
    }
  }
  const fetchImpl = options.fetch ?? globalThis.fetch;
  return {
    apiKey: options.apiKey,
    baseUrl,
    env,
    homeDir: options.homeDir ?? homedir(),
    fetch: fetchImpl,
    retry,
    limits,
    logger: options.logger ?? silentLogger,
    clock: options.clock ?? systemClock,
    sleep: options.sleep ?? realSleep,
    random: options.random ?? Math.random,
    timeoutMs,
    userAgent: options.userAgent ?? "cuzkit-vast/0.1",
    createRecovery: withDefaults(defaultCreateRecovery, options.createRecovery),
  };
}

function normaliseBaseUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch (cause) {
    throw new InvalidInputError(`invalid Vast.ai base URL "${text}"`, {
      hint: "give an http(s) URL such as https://console.vast.ai",
      cause,
    });
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new InvalidInputError(`invalid Vast.ai base URL "${text}"`, {
      hint: "use an http(s) URL such as https://console.vast.ai",
    });
  }
  if (url.protocol === "http:" && !isLoopbackHost(url.hostname)) {
    throw new InvalidInputError(
      `refusing the plain-http Vast.ai base URL "${url.origin}": the API key would travel in clear`,
      {
        hint: "use https:// (such as https://console.vast.ai); http:// is allowed only to a loopback host (127.0.0.1, ::1, localhost), for a local fake or proxy",
      },
    );
  }
  if (url.username || url.password || url.search) {
    throw new InvalidInputError("the Vast.ai base URL must not carry credentials or a query", {
      hint: "give only scheme, host and port",
    });
  }
  return url.toString().replace(/\/+$/, "");
}

/** 127.0.0.0/8, ::1 and localhost: a plain-http URL there does not leave the machine. */
function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  return host === "localhost" || host === "::1" || /^127(\.\d{1,3}){3}$/.test(host);
}

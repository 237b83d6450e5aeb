import { withDefaults } from "@cuzkit/core";
import { sampleOffers } from "../sample-offers.js";
import {
  type FakeRateLimitedEndpoint,
  type FakeVastServerOptions,
  fakeRateLimitSeconds,
  type RecordedRequest,
  type Reply,
  type ScriptedFailure,
} from "./types.js";

const defaultKey = "fake-vast-key-5f1c0d9e8b7a6c5d";

/** What the fake server holds: its account, offers, instances, keys, log tokens, scripted failures, rate limits and requests. */
export interface FakeVastState {
  readonly apiKey: string;
  /** Offers in API units (mutable: a create marks one rented). */
  readonly offers: Record<string, unknown>[];
  readonly balance: number;
  /** `actual_status` an instance shows on its 1st, 2nd, ... show; the last repeats. */
  readonly bootSequence: (string | null)[];
  readonly logNotReadyPolls: number;
  readonly logText: string;
  /** Minimum interval per endpoint in seconds (absent: not limited). */
  readonly rateLimits: Partial<Record<FakeRateLimitedEndpoint, number>>;
  readonly now: () => number;
  /** When each endpoint last accepted a call, by `now`. */
  readonly lastAccepted: Map<FakeRateLimitedEndpoint, number>;
  readonly requests: RecordedRequest[];
  /** Waits of whenRequested; each checks itself after every recorded request. */
  readonly requestWaiters: Set<() => boolean>;
  readonly failures: (ScriptedFailure & { left: number })[];
  /** Instances by id, in API shape. */
  readonly instances: Map<number, Record<string, unknown>>;
  /** Shows made of each booting instance (its place in the boot sequence). */
  readonly bootStep: Map<number, number>;
  readonly sshKeys: Record<string, unknown>[];
  /** Polls of each log URL token. */
  readonly logPolls: Map<string, number>;
  nextInstanceId: number;
  nextKeyId: number;
  nextLogToken: number;
  /** The server's base URL, once it listens. */
  url: string;
}

/** The state of a fresh fake server, from its options and their defaults. */
export function createFakeVastState(options: FakeVastServerOptions): FakeVastState {
  return {
    apiKey: options.apiKey ?? defaultKey,
    offers: options.offers ?? sampleOffers(),
    balance: options.balance ?? 100,
    bootSequence: options.bootSequence ?? [null, "loading", "running"],
    logNotReadyPolls: options.logNotReadyPolls ?? 3,
    logText: options.logText ?? "cuzk daemon starting\nloading SRS params\nready on 0.0.0.0:9820\n",
    // An endpoint given as undefined keeps its default interval; `false` turns them all off.
    rateLimits: options.rateLimits === false ? {} : withDefaults(fakeRateLimitSeconds, options.rateLimits),
    now: options.now ?? Date.now,
    lastAccepted: new Map(),
    requests: [],
    requestWaiters: new Set(),
    failures: [],
    instances: new Map(),
    bootStep: new Map(),
    sshKeys: [],
    logPolls: new Map(),
    nextInstanceId: 7_000_001,
    nextKeyId: 1,
    nextLogToken: 1,
    url: "",
  };
}

/** Adds an instance record (a running RTX 4090 unless `record` says otherwise) and returns its id. */
export function addInstance(state: FakeVastState, record: Record<string, unknown> = {}): number {
  const id = typeof record.id === "number" ? record.id : state.nextInstanceId++;
  state.instances.set(id, {
    id,
    label: null,
    actual_status: "running",
    intended_status: "running",
    cur_state: "running",
    status_msg: "success, running",
    machine_id: 501,
    gpu_name: "RTX 4090",
    num_gpus: 1,
    gpu_ram: 24564,
    gpu_totalram: 24564,
    cpu_ram: 125_000,
    cpu_cores_effective: 8,
    disk_space: 50,
    dph_total: 0.4,
    is_bid: false,
    ssh_host: "ssh5.vast.ai",
    ssh_port: 30000 + (id % 10000),
    public_ipaddr: "203.0.113.7",
    ports: { "22/tcp": [{ HostIp: "0.0.0.0", HostPort: "40022" }] },
    image_uuid: "ubuntu:22.04",
    start_date: 1_760_000_000,
    ...record,
  });
  return id;
}

/** Sets an instance's `actual_status` (and `status_msg`) and stops its boot sequence. */
export function setInstanceStatus(
  state: FakeVastState,
  id: number,
  status: string | null,
  statusMsg?: string,
): void {
  const record = state.instances.get(id);
  if (!record) throw new Error(`no instance ${id}`);
  record.actual_status = status;
  if (statusMsg !== undefined) record.status_msg = statusMsg;
  state.bootStep.delete(id);
}

/** Queues a scripted failure. */
export function failNext(state: FakeVastState, failure: ScriptedFailure): void {
  state.failures.push({ ...failure, left: failure.times ?? 1 });
}

/** The first scripted failure that matches the request, counted down (and dropped when used up). */
export function takeFailure(state: FakeVastState, method: string, path: string): ScriptedFailure | undefined {
  const { failures } = state;
  const index = failures.findIndex(
    (f) =>
      (f.method === undefined || f.method.toUpperCase() === method) &&
      (typeof f.path === "string" ? f.path === path : f.path.test(path)),
  );
  if (index < 0) return undefined;
  const failure = failures[index]!;
  failure.left--;
  if (failure.left <= 0) failures.splice(index, 1);
  return failure;
}

/** 429 when `endpoint` accepted a call less than its interval ago; else records this one as accepted. */
export function rateLimited(
  state: FakeVastState,
  endpoint: FakeRateLimitedEndpoint | undefined,
): Reply | undefined {
  const seconds = endpoint === undefined ? undefined : state.rateLimits[endpoint];
  if (endpoint === undefined || seconds === undefined || seconds <= 0) return undefined;
  const at = state.now();
  const last = state.lastAccepted.get(endpoint);
  if (last !== undefined && at - last < seconds * 1000) {
    return {
      status: 429,
      body: undefined,
      text: `API requests too frequent endpoint threshold=${seconds.toFixed(1)}`,
      contentType: "text/plain",
    };
  }
  state.lastAccepted.set(endpoint, at);
  return undefined;
}

/** Records a request and wakes the waits it satisfies. */
export function recordRequest(state: FakeVastState, request: RecordedRequest): void {
  state.requests.push(request);
  for (const satisfied of [...state.requestWaiters]) if (satisfied()) state.requestWaiters.delete(satisfied);
}

/** Requests to a path (exact pathname or RegExp), optionally by method. */
export function requestsTo(state: FakeVastState, path: string | RegExp, method?: string): RecordedRequest[] {
  return state.requests.filter(
    (r) =>
      (method === undefined || r.method === method) &&
      (typeof path === "string" ? r.path === path : path.test(r.path)),
  );
}

/** Resolves once `count` requests to `path` (by `method`, when given) were received, those before the call included. */
export function whenRequested(
  state: FakeVastState,
  path: string | RegExp,
  options: { method?: string | undefined; count?: number | undefined },
): Promise<void> {
  const wanted = options.count ?? 1;
  const satisfied = () => requestsTo(state, path, options.method).length >= wanted;
  if (satisfied()) return Promise.resolve();
  return new Promise<void>((resolve) => {
    state.requestWaiters.add(() => {
      if (!satisfied()) return false;
      resolve();
      return true;
    });
  });
}

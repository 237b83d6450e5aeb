import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createManualClock } from "@cuzkit/core/testing";
import { createSyntheticC1, type SimDaemon, type SimDaemonOptions, startSimDaemon } from "@cuzkit/sim";
import { afterEach } from "vitest";
import { type CuzkClient, createCuzkClient } from "./client.js";
import type { ProveEvent } from "./events.js";
import { type CuzkClientOptions, resolveClientOptions } from "./options.js";
import { porepRequest } from "./requests.js";
import { startTcpProxy, type TcpProxy } from "./testing/tcp-proxy.js";

// Shared by the client's own end-to-end tests (not exported): what a test starts is closed
// after it, and faults are triggered from the client's events, never after a sleep.

/** Starts daemons, proxies, clients and folders for each test and closes them after it, newest first. Call once per test file. */
export function useClientTestKit() {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  return {
    /** Runs `cleanup` after the test. */
    defer(cleanup: () => Promise<unknown>): void {
      cleanups.push(cleanup);
    },
    /** An in-process simulated daemon. */
    async sim(options: SimDaemonOptions = {}): Promise<SimDaemon> {
      const daemon = await startSimDaemon(options);
      cleanups.push(() => daemon.stop());
      return daemon;
    },
    /** A TCP proxy in front of `daemon`. */
    async proxyTo(daemon: { address: string }): Promise<TcpProxy> {
      const proxy = await startTcpProxy(daemon.address);
      cleanups.push(() => proxy.close());
      return proxy;
    },
    /** A client of `address`. */
    client(address: string, options: Partial<CuzkClientOptions> = {}): CuzkClient {
      const c = createCuzkClient({ address, ...options });
      cleanups.push(() => c.close());
      return c;
    },
    /** A fresh temporary folder (for unix sockets). */
    async tempDir(): Promise<string> {
      const dir = await mkdtemp(join(tmpdir(), "cuzkit-client-"));
      cleanups.push(() => rm(dir, { recursive: true, force: true }));
      return dir;
    },
  };
}

/** A PoRep request with a synthetic C1 of `sizeBytes`, miner 1000, sector 1. */
export const porep = (sizeBytes = 4096) =>
  porepRequest({ c1: createSyntheticC1({ sizeBytes }), sectorNumber: 1, minerId: 1000 });

/** Collects prove events and lets a test react to one. */
export function recorder(on?: (event: ProveEvent) => void) {
  const events: ProveEvent[] = [];
  return {
    events,
    types: () => events.map((e) => e.type),
    onEvent: (event: ProveEvent) => {
      events.push(event);
      on?.(event);
    },
  };
}

/** Resolves once `daemon` holds the `count`-th AwaitProof of the event's job: that call is in flight. */
export const awaitInFlight = (daemon: Pick<SimDaemon, "whenReceived">, event: ProveEvent, count = 1) =>
  daemon.whenReceived("AwaitProof", { jobId: event.requestId, count });

/**
 * A recorder that runs `fault` once the daemon holds the `count`-th AwaitProof of the submitted
 * job: the fault then hits the call in flight.
 */
export function faultWhenInFlight(daemon: Pick<SimDaemon, "whenReceived">, fault: () => void, count = 1) {
  return recorder((event) => {
    if (event.type === "submitted") void awaitInFlight(daemon, event, count).then(fault);
  });
}

/**
 * Client options on a manual clock (sleeps move it) whose random() steps by `randomStep`, so
 * the prove loop runs deterministically in microseconds; `overrides` win.
 */
export function manualTimeOptions(randomStep: number, overrides: Partial<CuzkClientOptions> = {}) {
  const clock = createManualClock(1_000_000);
  let rnd = 0;
  const options = resolveClientOptions({
    address: "127.0.0.1:9820",
    clock,
    sleep: clock.sleep,
    random: () => {
      rnd = (rnd + randomStep) % 1;
      return rnd;
    },
    ...overrides,
  });
  return { clock, options };
}

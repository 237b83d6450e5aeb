import { once } from "node:events";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "@cuzkit/core";
import { afterEach, describe, expect, it } from "vitest";
import type { FleetRunStep } from "../manager/fleet-run.js";
import {
  type DashboardFleet,
  seedDashboardFleet,
  startDashboardFleet,
} from "../test-support/dashboard-fleet.js";
import { type FleetAlert, slackSafe } from "./alert.js";
import { createAlertWatcher } from "./alert-watcher.js";
import { createWebhookSender } from "./webhook-sender.js";

// A webhook receiver on loopback: records each POST, answers with the next scripted status
// (200 once the script is used up), or holds the request until released.
async function startReceiver(script: number[] = []) {
  const received: { body: FleetAlert & { text: string }; path: string }[] = [];
  let hold: Promise<void> | undefined;
  let arrived: () => void = () => {};
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      received.push({ body: JSON.parse(Buffer.concat(chunks).toString("utf8")), path: req.url ?? "" });
      arrived();
      if (hold !== undefined) await hold;
      res.writeHead(script.shift() ?? 200).end("ok");
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    received,
    // Slack-style: the secret is in the path.
    url: `http://127.0.0.1:${port}/services/T000/B000/secret-hook-token`,
    holdNext() {
      let release: () => void = () => {};
      hold = new Promise<void>((resolve) => {
        release = resolve;
      });
      const came = new Promise<void>((resolve) => {
        arrived = resolve;
      });
      return { came, release: () => release() };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const noWait = async () => {};
const logged: string[] = [];
const logger: Logger = {
  debug: (m, f) => logged.push(`${m} ${JSON.stringify(f)}`),
  info: (m, f) => logged.push(`${m} ${JSON.stringify(f)}`),
  warn: (m, f) => logged.push(`${m} ${JSON.stringify(f)}`),
  error: (m, f) => logged.push(`${m} ${JSON.stringify(f)}`),
};

let d: DashboardFleet | undefined;
let receiver: Awaited<ReturnType<typeof startReceiver>> | undefined;
afterEach(async () => {
  await d?.close();
  await receiver?.close();
  d = undefined;
  receiver = undefined;
  logged.length = 0;
});

describe("fleet alerts to a webhook", () => {
  it("sends one alert for an OOM-killed machine, with its class, and never twice", async () => {
    d = await startDashboardFleet();
    const seeded = await seedDashboardFleet(d);
    receiver = await startReceiver();
    const sender = createWebhookSender({ url: receiver.url, sleep: noWait, logger });
    const watcher = createAlertWatcher({ manager: d.fleet.manager, sender, clock: d.fleet.clock });
    // The watcher starts at the log's end: the seeded history is not news.
    expect(await watcher.check()).toEqual([]);

    await d.agent(seeded.vetting.id, seeded.vetting.token, "failure", {
      phase: "warmup",
      errorClass: "died",
      code: "DAEMON_UNAVAILABLE",
      message: "the daemon was killed (exit 137, likely OOM) <!channel>",
    });
    const raised = await watcher.check();
    expect(raised.map((a) => [a.kind, a.instanceId, a.failureClass])).toEqual([
      ["machine-failed", seeded.vetting.id, "daemon-died"],
    ]);
    expect(await watcher.check()).toEqual([]);
    await sender.drain();
    expect(receiver.received).toHaveLength(1);
    const body = receiver.received[0]?.body as FleetAlert;
    expect(body).toMatchObject({
      kind: "machine-failed",
      failureClass: "daemon-died",
      fleet: d.fleet.manager.config.fleet,
    });
    // Slack-compatible: a text field, and a machine's text cannot mention the channel.
    expect(body.text).toContain("daemon-died");
    expect(body.text).toContain("&lt;!channel&gt;");
    expect(body.text).not.toContain("<!channel>");
    expect(sender.counts).toEqual({ delivered: 1, failed: 0, dropped: 0 });
  });

  it("retries a busy webhook with backoff, and the caller never waits for it", async () => {
    receiver = await startReceiver([503, 429]);
    const delays: number[] = [];
    const sender = createWebhookSender({
      url: receiver.url,
      sleep: async (ms) => {
        delays.push(ms);
      },
      logger,
    });
    const held = receiver.holdNext();
    sender.send(testAlert("a"));
    // send returned while the webhook still holds the request.
    await held.came;
    expect(sender.counts.delivered).toBe(0);
    held.release();
    await sender.drain();
    expect(receiver.received).toHaveLength(3);
    expect(delays).toHaveLength(2);
    expect(delays[1] as number).toBeGreaterThan(0);
    expect(sender.counts).toEqual({ delivered: 1, failed: 0, dropped: 0 });
  });

  it("gives up at once on a 404 and logs the host, never the secret URL", async () => {
    receiver = await startReceiver([404]);
    const sender = createWebhookSender({ url: receiver.url, sleep: noWait, logger });
    sender.send(testAlert("b"));
    await sender.drain();
    expect(receiver.received).toHaveLength(1);
    expect(sender.counts).toEqual({ delivered: 0, failed: 1, dropped: 0 });
    expect(logged.join("\n")).toContain("answered 404");
    expect(logged.join("\n")).toContain("127.0.0.1");
    expect(logged.join("\n")).not.toContain("secret-hook-token");
  });

  it("gives up after its attempts on a dead webhook and keeps a bounded queue", async () => {
    // Nothing listens on this port once the receiver is closed.
    receiver = await startReceiver();
    const url = receiver.url;
    await receiver.close();
    receiver = undefined;
    const sender = createWebhookSender({ url, sleep: noWait, logger, maxQueued: 2, maxAttempts: 2 });
    for (const key of ["1", "2", "3", "4"]) sender.send(testAlert(key));
    await sender.drain();
    // The first went out at once; of the three queued behind it, the oldest was dropped.
    expect(sender.counts).toEqual({ delivered: 0, failed: 3, dropped: 1 });
    expect(logged.join("\n")).not.toContain("secret-hook-token");
  });

  it("alerts once when the fleet stays under target for the window, and again after it recovered", async () => {
    d = await startDashboardFleet();
    await seedDashboardFleet(d);
    const sent: FleetAlert[] = [];
    let target = 100;
    const watcher = createAlertWatcher({
      manager: d.fleet.manager,
      sender: { send: (a) => sent.push(a) },
      target: {
        get proofsPerHour() {
          return target;
        },
      },
      belowTargetForMs: 30 * 60_000,
      clock: d.fleet.clock,
    });
    await watcher.check();
    d.fleet.clock.advance(29 * 60_000);
    await watcher.check();
    expect(sent).toEqual([]);
    d.fleet.clock.advance(60_000);
    await watcher.check();
    await watcher.check();
    expect(sent.map((a) => a.kind)).toEqual(["below-target"]);
    expect(sent[0]?.detail).toMatchObject({ have: 48.5, goal: 100, unit: "proofs/hour" });
    // Recovered (the target drops under the fleet's rate), then short again for a whole window.
    target = 40;
    await watcher.check();
    target = 100;
    await watcher.check();
    d.fleet.clock.advance(30 * 60_000);
    await watcher.check();
    expect(sent.map((a) => a.kind)).toEqual(["below-target", "below-target"]);
  });

  it("alerts when the $/h cap keeps the fleet under target, once per episode", async () => {
    d = await startDashboardFleet();
    const sent: FleetAlert[] = [];
    const watcher = createAlertWatcher({
      manager: d.fleet.manager,
      sender: { send: (a) => sent.push(a) },
      clock: d.fleet.clock,
    });
    const bound: FleetRunStep = {
      decisions: [],
      skipped: [],
      budgetBound: { dphPerHour: 9.5, maxDph: 10, capacity: 40, goal: 100, cheapestLeftOutDph: 0.9 },
    };
    await watcher.check(bound);
    await watcher.check(bound);
    expect(sent.map((a) => a.kind)).toEqual(["budget-reached"]);
    expect(sent[0]?.text).toContain("$9.50/h of $10.00/h");
    await watcher.check({ decisions: [], skipped: [] });
    await watcher.check(bound);
    expect(sent.map((a) => a.kind)).toEqual(["budget-reached", "budget-reached"]);
  });

  it("alerts on a machine newly excluded, not on exclusions in force when it started", async () => {
    d = await startDashboardFleet();
    const sent: FleetAlert[] = [];
    await d.fleet.manager.store.excludeMachine(777, "operator: flaky PSU");
    const watcher = createAlertWatcher({
      manager: d.fleet.manager,
      sender: { send: (a) => sent.push(a) },
      clock: d.fleet.clock,
    });
    await watcher.check();
    expect(sent).toEqual([]);
    await d.fleet.manager.store.excludeMachine(778, "operator: disk errors");
    await watcher.check();
    await watcher.check();
    expect(sent.map((a) => [a.kind, a.detail.machineId])).toEqual([["machine-excluded", 778]]);
    expect(sent[0]?.text).toContain("disk errors");
  });
});

describe("slackSafe", () => {
  it("escapes Slack's control sequences, flattens newlines and bounds the length", () => {
    expect(slackSafe("a <@U123> & <https://x|y>\nnext")).toBe(
      "a &lt;@U123&gt; &amp; &lt;https://x|y&gt; next",
    );
    expect(slackSafe("x".repeat(1000), 20)).toHaveLength(20);
  });
});

function testAlert(key: string): FleetAlert {
  return { kind: "below-target", fleet: "f", key, at: 0, text: `alert ${key}`, detail: {} };
}

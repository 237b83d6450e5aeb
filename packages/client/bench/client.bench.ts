// pnpm bench:client: the client against the simulated daemon (in a child process), all
// figures from one run.
// 1. Latency of a 51 MB PoRep Prove with an instant proof: cuzkit (prove = GetStatus baseline
//    + SubmitProof + AwaitProof; proveOnce = one Prove), connect-node with its default
//    serialization, a bare @grpc/grpc-js client, and a raw TCP send of the same bytes,
//    interleaved, 15 rounds.
// 2. Memory: peak RSS growth with six such proofs in flight, one child process per sender.
// 3. An aborted 51 MB upload: time from the cut to the next successful call on the same
//    client (target < 1 s), against the same call on a fresh client.
// 4. Failure detection, default settings: time from the daemon freezing to prove()'s typed
//    error (DaemonFrozenError, target <= 45 s) and to a raw awaitProof's, measured together.
import { type ChildProcess, fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { formatBytes } from "@cuzkit/core";
import { createSyntheticC1 } from "@cuzkit/sim";
import {
  createCuzkClient,
  DaemonFrozenError,
  defaultKeepalive,
  defaultReconnect,
  porepRequest,
} from "../src/index.js";
import type { DaemonAddresses } from "./daemon-child.js";
import { createSender, type Sender, type SenderName, senderNames } from "./senders.js";
import { summarize } from "./stats.js";

const payloadBytes = 51_000_000;
const rounds = Number(process.env.BENCH_ROUNDS ?? 15);
const inFlight = 6;
const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));
const tsxArgs = ["--import", "tsx"];

function startDaemonChild(): Promise<{ child: ChildProcess; addresses: DaemonAddresses }> {
  const child = fork(here("./daemon-child.ts"), [], {
    execArgv: tsxArgs,
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`daemon child exited with ${code}`)));
    child.on("message", (message: { type: string }) => {
      if (message.type === "ready") resolve({ child, addresses: message as DaemonAddresses });
    });
  });
}

function runMemoryChild(
  name: SenderName,
  addresses: DaemonAddresses,
): Promise<{ growthBytes: number; wallMs: number }> {
  const child = fork(
    here("./memory-child.ts"),
    [name, addresses.fast, addresses.raw, String(payloadBytes), String(inFlight)],
    {
      execArgv: tsxArgs,
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    },
  );
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.on("message", (message: { growthBytes: number; wallMs: number }) => resolve(message));
    child.once("exit", (code) => code !== 0 && reject(new Error(`memory child ${name} exited with ${code}`)));
  });
}

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(0)} MB`;
const ms = (value: number) => `${value.toFixed(0)} ms`;

const { child, addresses } = await startDaemonChild();
try {
  const c1 = createSyntheticC1({ sizeBytes: payloadBytes });
  const request = await porepRequest({ c1, sectorNumber: 1, minerId: 1000 });
  console.log(
    `cuzkit client benchmark: ${mb(payloadBytes)} PoRep C1, ${rounds} rounds, daemon = @cuzkit/sim in a child process`,
  );

  // 1. Latency, interleaved (the order rotates every round).
  const senders = new Map<SenderName, Sender>(
    senderNames.map((name) => [name, createSender(name, addresses)]),
  );
  for (const [name, sender] of senders) await sender.send(request, `warmup-${name.replace(/\W/g, "")}`);
  const samples = new Map<SenderName, number[]>(senderNames.map((name) => [name, []]));
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < senderNames.length; k++) {
      const name = senderNames[(round + k) % senderNames.length]!;
      const started = performance.now();
      await senders.get(name)!.send(request, `r${round}-${name.replace(/\W/g, "")}`);
      samples.get(name)!.push(performance.now() - started);
    }
  }
  for (const sender of senders.values()) await sender.close();
  const bare = summarize(samples.get("bare grpc-js")!);
  console.log("\n1. Latency of one 51 MB PoRep Prove (instant proof), loopback");
  console.log("   sender              median      p95   median vs bare grpc-js");
  for (const name of senderNames) {
    const s = summarize(samples.get(name)!);
    console.log(
      `   ${name.padEnd(18)} ${ms(s.median).padStart(7)} ${ms(s.p95).padStart(8)}   ${(s.median / bare.median).toFixed(2)}`,
    );
  }
  const onceRatio = summarize(samples.get("cuzkit proveOnce")!).median / bare.median;
  console.log(
    `   cuzkit proveOnce vs bare grpc-js: ${onceRatio.toFixed(2)}; target <= 0.80: ${onceRatio <= 0.8 ? "met" : "MISSED"}`,
  );

  // 2. Memory, one process per sender.
  console.log(
    `\n2. Peak RSS growth with ${inFlight} x ${mb(payloadBytes)} proofs in flight (client process only; payloads allocated before the baseline)`,
  );
  console.log("   sender              growth   extra copies/payload   copies incl. the caller's   wall");
  // Raw TCP is left out: it sends the caller's buffer as is, one request at a time.
  const cuzkitCopies: number[] = [];
  for (const name of senderNames.filter((n) => n !== "raw TCP")) {
    const m = await runMemoryChild(name, addresses);
    const extra = m.growthBytes / (inFlight * payloadBytes);
    console.log(
      `   ${name.padEnd(18)} ${mb(m.growthBytes).padStart(7)}   ${extra.toFixed(2).padStart(20)}   ${(1 + extra).toFixed(2).padStart(25)}   ${ms(m.wallMs)}`,
    );
    if (name.startsWith("cuzkit")) cuzkitCopies.push(1 + extra);
  }
  const worstCopies = Math.max(...cuzkitCopies);
  console.log(
    `   cuzkit copies incl. the caller's (worst of prove, proveOnce): ${worstCopies.toFixed(2)}; target <= 2: ${worstCopies <= 2 ? "met" : "MISSED"}`,
  );

  // 4. An aborted upload, then the next call on the same client (before the freeze: the
  //    slow daemon stays frozen afterwards).
  console.log(
    `\n3. A ${mb(payloadBytes)} submit cut by its deadline (20 ms), then the next call on the same client`,
  );
  const small = await porepRequest({
    c1: createSyntheticC1({ sizeBytes: 4096 }),
    sectorNumber: 2,
    minerId: 1000,
  });
  const cutSamples: number[] = [];
  const freshSamples: number[] = [];
  const cutCodes = new Set<string>();
  for (let round = 0; round < 5; round++) {
    const cutClient = createCuzkClient({ address: addresses.fast });
    const cut = await cutClient
      .submitProof({ ...request, requestId: `cut-${round}` }, { timeoutMs: 20 })
      .then(
        () => undefined,
        (error: { code?: string }) => error,
      );
    cutCodes.add(cut?.code ?? "no error (the upload finished within 20 ms)");
    const after = performance.now();
    await cutClient.prove(small);
    cutSamples.push(performance.now() - after);
    await cutClient.close();
    const freshClient = createCuzkClient({ address: addresses.fast });
    const fresh = performance.now();
    await freshClient.prove(small);
    freshSamples.push(performance.now() - fresh);
    await freshClient.close();
  }
  const cutMedian = summarize(cutSamples).median;
  console.log(
    `   cut submit: ${[...cutCodes].join(", ")}; next prove on the same client: median ${ms(cutMedian)}, ` +
      `max ${ms(Math.max(...cutSamples))} (a fresh client: median ${ms(summarize(freshSamples).median)}); ` +
      `target < 1000 ms: ${Math.max(...cutSamples) < 1_000 ? "met" : "MISSED"}`,
  );

  // 4. Failure detection with default settings (last: the slow daemon stays frozen).
  console.log(
    `\n4. Daemon freezes (no answers, no PING acks) during AwaitProof; defaults: keepalive ${defaultKeepalive.pingIntervalMs} ms + ` +
      `${defaultKeepalive.pingTimeoutMs} ms, probe ${defaultReconnect.probeTimeoutMs} ms`,
  );
  const proveClient = createCuzkClient({ address: addresses.slow });
  const rawClient = createCuzkClient({ address: addresses.slow });
  let stalledAt = 0;
  const caught = (started: () => number) => (error: unknown) => ({
    error,
    ms: performance.now() - started(),
  });
  const proving = proveClient.prove(small).then(
    () => ({ error: new Error("the proof completed") as unknown, ms: 0 }),
    caught(() => stalledAt),
  );
  const submitted = await rawClient.submitProof({ ...small, requestId: "freeze-raw-1" });
  const awaiting = rawClient.awaitProof(submitted.jobId).then(
    () => ({ error: new Error("the proof completed") as unknown, ms: 0 }),
    caught(() => stalledAt),
  );
  await new Promise((resolve) => setTimeout(resolve, 300));
  stalledAt = performance.now();
  child.send({ type: "stall" });
  const [proved, raw] = await Promise.all([proving, awaiting]);
  await Promise.all([proveClient.close(), rawClient.close()]);
  const name = (error: unknown) =>
    error instanceof Error
      ? `${error.constructor.name} ${(error as { code?: string }).code ?? ""}`.trim()
      : String(error);
  const target = 45_000;
  console.log(
    `   prove(): typed error after ${(proved.ms / 1000).toFixed(1)} s (${name(proved.error)}); target <= 45 s: ` +
      `${proved.error instanceof DaemonFrozenError && proved.ms <= target ? "met" : "MISSED"}`,
  );
  console.log(
    `   raw awaitProof: typed error after ${(raw.ms / 1000).toFixed(1)} s (${name(raw.error)}); ` +
      `keepalive bound ${((defaultKeepalive.pingIntervalMs + defaultKeepalive.pingTimeoutMs) / 1000).toFixed(0)} s; ` +
      "without keepalive: the 30 min deadline",
  );
  console.log(`\n(payload ${formatBytes(payloadBytes)}; node ${process.version})`);
} finally {
  child.send({ type: "stop" });
}

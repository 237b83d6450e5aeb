// pnpm bench:client: the client against the simulated daemon (in a child process), all
// figures from one run.
// 1. Latency of a 51 MB PoRep Prove with an instant proof: cuzkit (prove = GetStatus baseline
//    + SubmitProof + AwaitProof; proveOnce = one Prove), connect-node with its default
//    serialization, a bare @grpc/grpc-js client, and a raw TCP send of the same bytes,
//    interleaved, 15 rounds.
// 2. Memory: peak RSS growth with six such proofs in flight, one child process per sender.
// 3. Failure detection: time from the daemon freezing to the typed error, default settings.
import { type ChildProcess, fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { formatBytes } from "@cuzkit/core";
import { createSyntheticC1 } from "@cuzkit/sim";
import { ConnectionLostError, createCuzkClient, defaultKeepalive, porepRequest } from "../src/index.js";
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

  // 2. Memory, one process per sender.
  console.log(
    `\n2. Peak RSS growth with ${inFlight} x ${mb(payloadBytes)} proofs in flight (client process only; payloads allocated before the baseline)`,
  );
  console.log("   sender              growth   extra copies/payload   copies incl. the caller's   wall");
  // Raw TCP is left out: it sends the caller's buffer as is, one request at a time.
  for (const name of senderNames.filter((n) => n !== "raw TCP")) {
    const m = await runMemoryChild(name, addresses);
    const extra = m.growthBytes / (inFlight * payloadBytes);
    console.log(
      `   ${name.padEnd(18)} ${mb(m.growthBytes).padStart(7)}   ${extra.toFixed(2).padStart(20)}   ${(1 + extra).toFixed(2).padStart(25)}   ${ms(m.wallMs)}`,
    );
  }

  // 3. Failure detection with default settings.
  console.log(
    `\n3. Daemon freezes (no answers, no PING acks) during AwaitProof, default keepalive ${defaultKeepalive.pingIntervalMs} ms + ${defaultKeepalive.pingTimeoutMs} ms`,
  );
  const client = createCuzkClient({ address: addresses.slow });
  const small = await porepRequest({
    c1: createSyntheticC1({ sizeBytes: 4096 }),
    sectorNumber: 2,
    minerId: 1000,
  });
  const submitted = await client.submitProof({ ...small, requestId: "freeze-1" });
  const awaiting = client.awaitProof(submitted.jobId).then(
    () => new Error("the proof completed"),
    (error: unknown) => error,
  );
  await new Promise((resolve) => setTimeout(resolve, 100));
  const stalledAt = performance.now();
  child.send({ type: "stall" });
  const error = await awaiting;
  const detectedMs = performance.now() - stalledAt;
  await client.close();
  const budget = defaultKeepalive.pingIntervalMs + defaultKeepalive.pingTimeoutMs;
  console.log(
    `   typed error after ${ms(detectedMs)} (${error instanceof ConnectionLostError ? "ConnectionLostError" : String(error)}); ` +
      `target <= ${ms(budget)}: ${detectedMs <= budget + 500 ? "met" : "MISSED"}; without keepalive: the 30 min deadline`,
  );
  console.log(`\n(payload ${formatBytes(payloadBytes)}; node ${process.version})`);
} finally {
  child.send({ type: "stop" });
}

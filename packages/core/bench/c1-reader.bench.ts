// pnpm bench:c1: core's C1 reader (readC1Wrapper, a scan of the wrapper's top-level keys)
// against the full JSON.parse it replaced (decode the 51 MB file to a string, parse it, decode
// Phase1Out from base64), on the same 51 MB synthetic C1 file, in the same run. Each method runs
// in its own child process, so its peak memory (max RSS over the file's bytes already read) is
// its own.
import { fork } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { formatBytes } from "../src/bytes.js";
import { readC1Wrapper } from "../src/c1.js";

const wrapperBytes = 51_000_000;
const rounds = Number(process.env.BENCH_ROUNDS ?? 10);
const methods = ["reader", "json-parse"] as const;
type Method = (typeof methods)[number];

interface Figures {
  method: Method;
  medianMs: number;
  /** Max RSS growth after the first read: one read's own peak. */
  firstPeakGrowthBytes: number;
  /** Max RSS growth after all rounds (garbage of earlier rounds included). */
  peakGrowthBytes: number;
  sectorNumber: number;
}

/** A C1 wrapper of about `size` bytes shaped as Curio writes it (Phase1Out's JSON starts with registered_proof). */
function syntheticC1(size: number): Buffer {
  const jsonBytes = Math.floor((size - 80) / 4) * 3;
  const json = Buffer.alloc(jsonBytes, "a");
  json.write('{"registered_proof":"StackedDrg32GiBV1_1","vanilla_proofs":"', 0, "latin1");
  json.write('"}', jsonBytes - 2, "latin1");
  return Buffer.from(`{"SectorNum":7,"Phase1Out":"${json.toString("base64")}","SectorSize":34359738368}`);
}

/** The full parse core used before: the whole file as a string, JSON.parse, Phase1Out decoded. */
function jsonParse(bytes: Uint8Array): number {
  const wrapper = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes)) as {
    SectorNum: number;
    Phase1Out: string;
  };
  const decoded = Buffer.from(wrapper.Phase1Out, "base64");
  if (!/"registered_proof"/.test(decoded.subarray(0, 4096).toString("utf8"))) throw new Error("no proof");
  return wrapper.SectorNum;
}

async function child(method: Method, path: string): Promise<void> {
  const bytes = await readFile(path);
  const before = process.resourceUsage().maxRSS * 1024;
  const times: number[] = [];
  let sectorNumber = -1;
  let firstPeakGrowthBytes = 0;
  for (let i = 0; i < rounds; i++) {
    const start = performance.now();
    sectorNumber = method === "reader" ? readC1Wrapper(bytes).sectorNumber : jsonParse(bytes);
    times.push(performance.now() - start);
    if (i === 0) firstPeakGrowthBytes = process.resourceUsage().maxRSS * 1024 - before;
  }
  times.sort((a, b) => a - b);
  const figures: Figures = {
    method,
    medianMs: times[Math.floor(times.length / 2)] ?? Number.NaN,
    firstPeakGrowthBytes,
    peakGrowthBytes: process.resourceUsage().maxRSS * 1024 - before,
    sectorNumber,
  };
  process.send?.(figures);
}

function runChild(method: Method, path: string): Promise<Figures> {
  const script = fileURLToPath(import.meta.url);
  const proc = fork(script, [method, path], { execArgv: ["--import", "tsx"], stdio: "inherit" });
  return new Promise((resolve, reject) => {
    proc.once("message", (message) => resolve(message as Figures));
    proc.once("error", reject);
    proc.once("exit", (code) => {
      if (code !== 0) reject(new Error(`${method} child exited with ${code}`));
    });
  });
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "cuzkit-c1-bench-"));
  try {
    const path = join(dir, "c1.json");
    await writeFile(path, syntheticC1(wrapperBytes));
    console.log(`C1 reader vs JSON.parse, ${formatBytes(wrapperBytes)} wrapper, ${rounds} rounds each`);
    const results: Figures[] = [];
    for (const method of methods) results.push(await runChild(method, path));
    for (const r of results) {
      console.log(
        `  ${r.method.padEnd(10)} median ${r.medianMs.toFixed(2).padStart(8)} ms   peak memory growth: one read ${formatBytes(Math.max(0, r.firstPeakGrowthBytes)).padStart(9)}, all rounds ${formatBytes(Math.max(0, r.peakGrowthBytes)).padStart(9)}   (SectorNum ${r.sectorNumber})`,
      );
    }
    const [reader, parse] = results as [Figures, Figures];
    console.log(
      `  reader is ${(parse.medianMs / reader.medianMs).toFixed(0)}x faster; one JSON.parse grows memory by ${formatBytes(
        Math.max(0, parse.firstPeakGrowthBytes - reader.firstPeakGrowthBytes),
      )} more than one read`,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const [method, path] = process.argv.slice(2);
if (method !== undefined && path !== undefined) await child(method as Method, path);
else await main();

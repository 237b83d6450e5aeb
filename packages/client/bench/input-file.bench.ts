// `pnpm bench:input`: what refusing an oversized proof input costs. A 2 GB file given as a C1
// output (a sector file, a wrong path) must be refused from its size alone: no read, no memory.
// Baseline in the same run: reading a real-sized 51 MB C1 file whole. Figures are printed, not
// asserted: the target (< 100 ms, < 50 MB extra) is for a person to read against the baseline.
import { mkdtemp, open, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readProofInputFile } from "../src/input-file.js";

const dir = await mkdtemp(join(tmpdir(), "cuzkit-input-bench-"));
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

/** Time and memory growth (RSS and array buffers) of one call, after a GC when exposed. */
async function measure(run: () => Promise<unknown>) {
  globalThis.gc?.();
  const before = process.memoryUsage();
  const startMs = performance.now();
  let kept: unknown; // held until memory is read, so the baseline's buffer counts
  const outcome = await run().then(
    (value) => {
      kept = value;
      return `read ${mb((value as Uint8Array).byteLength)}`;
    },
    (error: unknown) => `refused: ${(error as { code?: string }).code}`,
  );
  const wallMs = performance.now() - startMs;
  const after = process.memoryUsage();
  void kept;
  return {
    outcome,
    wallMs,
    rssBytes: after.rss - before.rss,
    buffersBytes: after.arrayBuffers - before.arrayBuffers,
  };
}

try {
  const sparse = join(dir, "sector.c1.json");
  const handle = await open(sparse, "w");
  await handle.truncate(2 * 1024 ** 3); // 2 GiB, sparse: it takes no disk
  await handle.close();
  const normal = join(dir, "c1.json");
  await writeFile(normal, Buffer.alloc(51_000_000, 0x7b));

  // The refusal first: the baseline's 51 MB buffer must not be freed inside its measurement.
  const refused = await measure(() => readProofInputFile(sparse, { label: "C1 output" }));
  const baseline = await measure(() => readProofInputFile(normal, { label: "C1 output" }));
  console.log("input file                 outcome                     wall      RSS growth  buffers growth");
  for (const [name, r] of [
    ["51 MB C1 (baseline)", baseline],
    ["2 GiB file as C1", refused],
  ] as const) {
    console.log(
      `${name.padEnd(26)} ${r.outcome.padEnd(27)} ${`${r.wallMs.toFixed(1)} ms`.padStart(9)} ${mb(r.rssBytes).padStart(11)} ${mb(r.buffersBytes).padStart(15)}`,
    );
  }
  console.log(
    `\nrefusal vs baseline read: ${(refused.wallMs / baseline.wallMs).toFixed(3)}x the time; target < 100 ms and < 50 MB extra (node ${process.version})`,
  );
} finally {
  await rm(dir, { recursive: true, force: true });
}

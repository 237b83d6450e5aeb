// Prove one PoRep C2 proof and write it to a file.
//   CUZK_ADDR=127.0.0.1:9820 npx tsx examples/prove-one-proof.ts c1.json proof.bin
// The client submits, then awaits; if the connection breaks it reconnects and re-attaches to
// the running job instead of starting over, and any failure comes back as a typed error
// with a hint (ConnectionLostError after an OOM kill, DeadlineExceededError, ...).
import { writeFile } from "node:fs/promises";
import { createCuzkClient, porepRequest } from "@cuzkit/client";
import { CuzkitError } from "@cuzkit/core";

const [c1Path = "c1.json", outPath = "proof.bin"] = process.argv.slice(2);
const client = createCuzkClient({ address: process.env.CUZK_ADDR ?? "127.0.0.1:9820" });

try {
  await client.waitForReady({ timeoutMs: 60_000 }); // the daemon may still be loading parameters
  const request = await porepRequest({ c1: { path: c1Path }, minerId: 1000, sectorNumber: 1 });
  const result = await client.prove(request, {
    onEvent: (event) => console.error(`  ${event.type}`), // attempt, submitted, ..., completed
  });
  await writeFile(outPath, result.proof);
  console.log(
    `proof ${result.jobId}: ${result.proof.byteLength} bytes in ${(result.wallMs / 1000).toFixed(1)} s -> ${outPath}`,
  );
} catch (error) {
  if (CuzkitError.is(error)) console.error(`${error.code}: ${error.message}\nhint: ${error.hint}`);
  process.exitCode = 1;
} finally {
  await client.close();
}

// One memory measurement in its own process: peak RSS growth while six 51 MB PoRep proofs are
// in flight through one sender. The six payloads are allocated and touched before the
// baseline, so the growth is what the sender itself copies.
import { create } from "@bufbuild/protobuf";
import { SubmitProofRequestSchema } from "@cuzkit/proto";
import { createSyntheticC1 } from "@cuzkit/sim";
import { porepRequest } from "../src/index.js";
import { createSender, type SenderName } from "./senders.js";

const [name, fastAddress, rawAddress, payloadText, countText] = process.argv.slice(2);
const payloadBytes = Number(payloadText);
const count = Number(countText);
const sender = createSender(name as SenderName, { fast: fastAddress!, raw: rawAddress! });

const requests = [];
for (let i = 0; i < count; i++) {
  const c1 = createSyntheticC1({ sizeBytes: payloadBytes, sectorNumber: i + 1 });
  requests.push(await porepRequest({ c1, sectorNumber: i + 1, minerId: 1000 }));
}
// Warm up the connection and the code paths with a small proof.
const small = await porepRequest({
  c1: createSyntheticC1({ sizeBytes: 4096 }),
  sectorNumber: 1,
  minerId: 1000,
});
await sender.send(small, "warm-0");
await sender.send(small, "warm-1");
global.gc?.();
await new Promise((resolve) => setTimeout(resolve, 200));

const baselineRss = process.memoryUsage.rss();
const baselineMax = process.resourceUsage().maxRSS * 1024;
let peakRss = baselineRss;
const sampler = setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage.rss());
}, 2);
const started = performance.now();
await Promise.all(
  requests.map((request, i) => sender.send(create(SubmitProofRequestSchema, request), `mem-${i}`)),
);
const wallMs = performance.now() - started;
clearInterval(sampler);
const maxRss = process.resourceUsage().maxRSS * 1024;
await sender.close();
// maxRSS is the kernel's exact high-water mark, but only says something if this run raised it.
const peak = maxRss > baselineMax ? Math.max(maxRss, peakRss) : peakRss;
process.send?.({ name, growthBytes: peak - baselineRss, wallMs });
process.exit(0);

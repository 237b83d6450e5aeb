import { runTrustDay, trustMarket } from "../src/testing/trust-day.js";
const seeds = (process.argv[2] ?? "11").split(",").map(Number);
for (const seed of seeds) {
const t0 = performance.now();
const r = await runTrustDay(seed, { hours: Number(process.argv[3] ?? 24), targetProofsPerHour: Number(process.argv[4] ?? 300) });
console.log(JSON.stringify(r), (performance.now()-t0).toFixed(0), "ms");
}

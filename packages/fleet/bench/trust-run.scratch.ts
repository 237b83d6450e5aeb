import { runTrustDay, trustMarket } from "../src/testing/trust-day.js";
const seed = Number(process.argv[2] ?? 11);
const hosts = trustMarket(seed);
console.log(hosts.length, hosts.map(h=>h.behaviour[0]).join(""));
const t0 = performance.now();
console.log(await runTrustDay(seed, { hours: Number(process.argv[3] ?? 24) }), (performance.now()-t0).toFixed(0), "ms");

// Benchmark a running daemon: one warmup proof, then 6 timed proofs, 2 in flight.
//   CUZK_ADDR=127.0.0.1:9820 npx tsx examples/run-benchmark.ts c1.json
// The report always comes back with a verdict; a daemon that dies or freezes mid-run makes it UNSTABLE.
import { formatReport, runBenchmark, verdictExitCode } from "@cuzkit/bench";
import { porepRequest } from "@cuzkit/client";

const [c1Path = "c1.json"] = process.argv.slice(2);
const report = await runBenchmark({
  address: process.env.CUZK_ADDR ?? "127.0.0.1:9820",
  request: await porepRequest({ c1: { path: c1Path }, minerId: 1000, sectorNumber: 1 }),
  count: 6,
  concurrency: 2,
  warmup: "auto",
  minProofsPerHour: 1,
  onProgress: (event, counts) => {
    if (event.type === "proof-completed" && !event.warmup)
      console.error(`  ${counts.done}/${counts.total} done`);
  },
});
console.log(formatReport(report));
process.exitCode = verdictExitCode(report.verdict); // 0 MET, 2 BELOW, 3 UNSTABLE, 1 FAILED

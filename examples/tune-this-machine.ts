// Size the daemon to this machine: read RAM, container limits, CPU quota and GPUs, then print
// the cuzk.toml the model says is safe and fast, with its reasons.
//   npx tsx examples/tune-this-machine.ts
import { formatBytes } from "@cuzkit/core";
import { detectHardware, emitCuzkToml, recommend } from "@cuzkit/tuner";

const detected = await detectHardware();
for (const [name, reading] of Object.entries(detected.readings)) {
  console.error(`${name}: ${JSON.stringify(reading.value)} (from ${reading.source})`);
}
const recommendation = recommend(detected, { dialect: "budget" });
if (!recommendation.feasible) {
  console.log(`no safe config: ${recommendation.infeasibleReason}`);
} else {
  const p = recommendation.predicted;
  console.error(
    `predicted: ${p.proofsPerHour.toFixed(1)} proofs/hour, peak ${formatBytes(p.peakMemoryBytes)}`,
  );
  console.log(emitCuzkToml(recommendation));
}

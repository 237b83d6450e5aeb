// A vitest reporter for scripts/test-stress.mjs: writes each test file's wall time (import,
// setup, hooks and tests, as vitest's module diagnostic gives them) as JSON to the path in
// CUZKIT_STRESS_DURATIONS. The JSON reporter only spans first test start to last test end,
// which leaves out a file's imports and beforeAll hooks.
import { writeFileSync } from "node:fs";

export default class StressDurationsReporter {
  onTestRunEnd(testModules) {
    const path = process.env.CUZKIT_STRESS_DURATIONS;
    if (!path) return;
    const durations = {};
    for (const module of testModules) {
      const d = module.diagnostic();
      durations[module.moduleId] =
        d.environmentSetupDuration + d.prepareDuration + d.collectDuration + d.setupDuration + d.duration;
    }
    writeFileSync(path, JSON.stringify(durations));
  }
}

// Mutation kill rates per package from a Stryker JSON report (mutation-testing-report-schema:
// { files: { path: { mutants: [{ status }] } } }). Used by scripts/report-shape.mjs.

/** Stryker's mutation score per package: (killed + timeout) / (killed + timeout + survived + no coverage). */
export function mutationScores(report) {
  const byPackage = new Map();
  for (const [path, file] of Object.entries(report.files ?? {})) {
    const name = /(packages\/[^/]+|proto)\//.exec(path)?.[1] ?? "(other)";
    const counts = byPackage.get(name) ?? { killed: 0, survived: 0, noCoverage: 0, other: 0 };
    for (const mutant of file.mutants ?? []) {
      if (mutant.status === "Killed" || mutant.status === "Timeout") counts.killed++;
      else if (mutant.status === "Survived") counts.survived++;
      else if (mutant.status === "NoCoverage") counts.noCoverage++;
      else counts.other++;
    }
    byPackage.set(name, counts);
  }
  return [...byPackage]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, counts]) => {
      const valid = counts.killed + counts.survived + counts.noCoverage;
      return { package: name, ...counts, score: valid === 0 ? undefined : counts.killed / valid };
    });
}

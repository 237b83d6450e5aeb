// vitest globalSetup: bundles the `cuzkit` command once per run, so that the hundreds of
// `cuzkit sim`, `cuzkit agent` and `cuzkit bench` children the tests start load one file
// (~0.7 s of CPU each) instead of tsx transforming and resolving ~300 sources one by one
// (~1.5 s each). Dependencies still load from node_modules and each source keeps its own
// import.meta.url (see cli-bundle.ts), so the bundle behaves as the sources do;
// packages/cli/src/cli-bundle.test.ts fails if it drifts.
// The path reaches the workers by vitest's provide/inject, not an environment variable (which
// forks would inherit too): the provided values travel in the config every worker gets,
// whatever the pool; a variable would also reach every process the tests start (agents,
// daemons, shells); and a run without this setup (a script, a bench,
// another config) gets no bundle, so cuzkitArgv() runs the sources with tsx.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { bundleCuzkit } from "./cli-bundle.js";

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dir = await mkdtemp(join(tmpdir(), "cuzkit-bundle-"));
  const outfile = join(dir, "cuzkit.mjs");
  await bundleCuzkit(outfile);
  project.provide("cuzkitBundle", outfile); // read by cuzkitBundle() in cuzkit-process.ts
  // Watch mode: a rerun follows edited sources, so the bundle is built again first.
  project.onTestsRerun(() => bundleCuzkit(outfile));
  return () => rm(dir, { recursive: true, force: true });
}

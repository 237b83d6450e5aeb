// Fails when the committed protobuf-es code in proto/src/gen is not what `pnpm generate`
// would write today: regenerates into a temporary folder and compares file by file.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";

const committedDir = "proto/src/gen";
const scratch = mkdtempSync(join(tmpdir(), "cuzkit-gen-"));

function listFiles(dir) {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .sort();
}

try {
  execFileSync("buf", ["generate", "--output", scratch], { stdio: "inherit" });
  const freshDir = join(scratch, committedDir);
  const fresh = listFiles(freshDir);
  const committed = listFiles(committedDir);
  const problems = [];
  for (const file of new Set([...fresh, ...committed])) {
    if (!fresh.includes(file)) problems.push(`${file}: committed but no longer generated`);
    else if (!committed.includes(file)) problems.push(`${file}: generated but not committed`);
    else if (readFileSync(join(freshDir, file), "utf8") !== readFileSync(join(committedDir, file), "utf8"))
      problems.push(`${file}: differs from what buf generates now`);
  }
  if (problems.length > 0) {
    console.error(
      `Generated code is stale. Run \`pnpm generate\` and commit the result:\n  ${problems.join("\n  ")}`,
    );
    process.exit(1);
  }
  console.log(`generated code is up to date (${fresh.length} file(s))`);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

// The API reference: every published entry of every package (read from each package.json's
// "exports", dist/X.js -> src/X.ts, so a new entry is documented without editing this file),
// rendered from the doc comments into docs/api/ (not committed: `pnpm docs:api`).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { OptionDefaults } from "typedoc";

const root = import.meta.dirname;
const packageDirs = ["proto", ...readdirSync(join(root, "packages")).map((name) => join("packages", name))];

const entryPoints = packageDirs.flatMap((dir) => {
  const manifest = JSON.parse(readFileSync(join(root, dir, "package.json"), "utf8"));
  return Object.entries(manifest.exports ?? {})
    .filter(([subpath, target]) => subpath !== "./package.json" && typeof target === "object")
    .map(([, target]) => join(dir, target.default.replace(/^\.\/dist\//, "src/").replace(/\.js$/, ".ts")));
});

/** @type {Partial<import("typedoc").TypeDocOptions>} */
export default {
  name: "cuzkit",
  entryPoints,
  tsconfig: "tsconfig.typedoc.json",
  out: "docs/api",
  readme: "none",
  plugin: ["./scripts/typedoc-entry-names.mjs"],
  // protobuf-es marks generated code with @generated.
  blockTags: [...OptionDefaults.blockTags, "@generated"],
  excludePrivate: true,
  excludeInternal: true,
  // A broken {@link} or a type users see but cannot import is a docs bug: fail on it.
  validation: { invalidLink: true, notExported: false, notDocumented: true },
  treatValidationWarningsAsErrors: true,
};

import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { typecheck } from "./support/typecheck.js";

// The README's claim about TypeScript settings, checked: a CommonJS project ("type": "commonjs")
// with module node16/node18 cannot import our ESM-only packages (TS1479), while node20, nodenext
// and bundler can. Each package is installed as its real package.json (what decides this: "type"
// and the exports map) with a one-line declaration file in place of the build.
const root = join(import.meta.dirname, "..");
const packageDirs = ["proto", ...readdirSync(join(root, "packages")).map((name) => `packages/${name}`)];
const manifests = packageDirs.map(
  (dir) => JSON.parse(readFileSync(join(root, dir, "package.json"), "utf8")) as { name: string },
);
let consumer = "";

// In this process (test/support/typecheck.ts): one TypeScript load for the five settings.
function typecheckConsumer(compilerOptions: Record<string, string>): string {
  return typecheck({
    files: [join(consumer, "index.ts")],
    compilerOptions: { ...compilerOptions, strict: true, types: [] },
  });
}

describe("TypeScript consumers", () => {
  beforeAll(() => {
    consumer = mkdtempSync(join(tmpdir(), "cuzkit-ts-consumer-"));
    writeFileSync(join(consumer, "package.json"), JSON.stringify({ name: "consumer", type: "commonjs" }));
    const imports: string[] = [];
    manifests.forEach((manifest, index) => {
      const dir = join(consumer, "node_modules", ...manifest.name.split("/"));
      mkdirSync(join(dir, "dist"), { recursive: true });
      writeFileSync(join(dir, "package.json"), JSON.stringify(manifest));
      writeFileSync(join(dir, "dist", "index.d.ts"), "export declare const marker: number;\n");
      imports.push(`import { marker as m${index} } from "${manifest.name}";`);
    });
    writeFileSync(
      join(consumer, "index.ts"),
      `${imports.join("\n")}\nexport const sum: number = ${manifests.map((_, i) => `m${i}`).join(" + ")};\n`,
    );
  });
  afterAll(() => rmSync(consumer, { recursive: true, force: true }));

  it.each(["node16", "node18"])("module %s with type commonjs: TS1479 for every package", (module) => {
    const output = typecheckConsumer({ module });
    for (const manifest of manifests) {
      expect(output).toMatch(new RegExp(`error TS1479: .*import\\("${manifest.name}"\\)`));
    }
  });

  it.each([
    [{ module: "node20" }],
    [{ module: "nodenext" }],
    [{ module: "preserve", moduleResolution: "bundler" }],
  ])("%j imports every package", (options) => {
    expect(typecheckConsumer(options)).toBe("");
  });
});

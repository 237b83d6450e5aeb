import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type ConditionalSpread, findConditionalSpreads } from "./support/conditional-spreads.js";

// Option fields are typed `x?: T | undefined`, so a caller passes `x` as it is. A ternary that picks
// between `{}` and `{ x }` only to dodge exactOptionalPropertyTypes is noise; this test keeps them
// out of packages/*/src. The few that mean something else are listed below with their reason.

const root = join(import.meta.dirname, "..");

/** A kept conditional spread: the file, a piece of the matched text that identifies it, and why. */
interface Allowed {
  file: string;
  text: string;
  reason: string;
}

const allowed: Allowed[] = [
  {
    file: "packages/fleet/src/manager/agent-handlers.ts",
    text: "changes: body.tunedConfig === undefined ? {} : { tunedConfig: body.tunedConfig }",
    reason:
      "the store writes every key present in `changes` (undefined as NULL): absence keeps the saved config",
  },
  {
    file: "packages/client/src/transport.ts",
    text: 'address.kind === "unix" ? { createConnection:',
    reason: "Node's http2 options through connect-node, types we do not own; TCP must not carry the key",
  },
  {
    file: "packages/fleet/src/web/api.ts",
    text: "token === undefined ? {} : { authorization:",
    reason: "HTTP headers: without a token the request carries no Authorization header at all",
  },
  {
    file: "packages/sim/src/testing/grpc-test-client.ts",
    text: "callOptions.timeoutMs === undefined ? {} : { deadline: Date.now()",
    reason:
      "a transform into grpc-js's CallOptions (a third-party type): a timeout becomes an absolute deadline",
  },
];

function sourceFiles(): string[] {
  return execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "packages/*/src/*"], {
    cwd: root,
    encoding: "utf8",
  })
    .split("\n")
    .filter((path) => path.endsWith(".ts") && !path.endsWith(".test.ts") && existsSync(join(root, path)));
}

describe("no conditional spreads in packages/*/src", () => {
  const all = sourceFiles().flatMap((file) =>
    findConditionalSpreads(file, readFileSync(join(root, file), "utf8")),
  );
  const isAllowed = (spread: ConditionalSpread) =>
    allowed.some((entry) => entry.file === spread.file && spread.text.includes(entry.text));

  it("every one left is on the allow-list, with its reason", () => {
    const offenders = all.filter((spread) => !isAllowed(spread)).map((s) => `${s.file}:${s.line}: ${s.text}`);
    expect(offenders).toEqual([]);
  });

  it("every allow-list entry still matches one (a stale entry would hide a new spread)", () => {
    const stale = allowed.filter(
      (entry) => !all.some((spread) => spread.file === entry.file && spread.text.includes(entry.text)),
    );
    expect(stale).toEqual([]);
    for (const entry of allowed) expect(entry.reason.length).toBeGreaterThan(10);
  });

  it("the scanner finds each form and passes fallbacks", () => {
    const source = [
      "const a = { ...(x === undefined ? {} : { x }) };",
      "const b = { ...(x !== undefined ? { x } : {}) };",
      "const c = { ...(flag ? { flag } : {}) };",
      "call(label === undefined ? {} : { label });",
      "const d = {",
      "  ...(y === undefined",
      "    ? {}",
      "    : { y }),",
      "};",
      "const e = isRecord(body) ? body : {};",
      "const f = { body: {}, raw: {} };",
      "const g = on === true ? {} : on;",
    ].join("\n");
    expect(findConditionalSpreads("f.ts", source).map((s) => s.line)).toEqual([1, 2, 3, 4, 7]);
  });
});

// Finds the conditional spreads that only dodge exactOptionalPropertyTypes: see
// test/no-conditional-spreads.test.ts.

/** Where a conditional spread is, and its text on one line. */
export interface ConditionalSpread {
  file: string;
  line: number;
  text: string;
}

/** The innermost bracket that is open at `index`, or undefined at the top level. */
function enclosingOpen(source: string, index: number): number | undefined {
  let depth = 0;
  for (let i = index - 1; i >= 0; i--) {
    const c = source[i];
    if (c === ")" || c === "]" || c === "}") depth++;
    else if (c === "(" || c === "[" || c === "{") {
      if (depth === 0) return i;
      depth--;
    }
  }
  return undefined;
}

/**
 * Ternaries with an empty-object branch (`c ? {} : {...}`, `c ? {...} : {}`) that are spread
 * (`...(c ? {} : x)`) or choose between two object literals. `c ? value : {}` (a fallback) is not
 * one. Relies on Biome's formatting: a ternary's `:` has a space or a line break before it.
 */
export function findConditionalSpreads(file: string, source: string): ConditionalSpread[] {
  const found: ConditionalSpread[] = [];
  const pattern = /\?\s*\{\s*\}\s*:(\s*\{)?|(?<=\s):\s*\{\s*\}(?=\s*[),;\]}])/g;
  for (const match of source.matchAll(pattern)) {
    const thenEmpty = match[0].startsWith("?");
    const otherIsObject = thenEmpty ? match[1] !== undefined : /\}\s*$/.test(source.slice(0, match.index));
    const open = enclosingOpen(source, match.index);
    const spread = open !== undefined && source[open] === "(" && source.slice(open - 3, open) === "...";
    if (!otherIsObject && !spread) continue;
    const line = source.slice(0, match.index).split("\n").length;
    const start = spread && open !== undefined ? open - 3 : source.lastIndexOf("\n", match.index) + 1;
    const end = source.indexOf("\n", match.index + match[0].length);
    const text = source
      .slice(start, end === -1 ? undefined : end)
      .replace(/\s+/g, " ")
      .trim();
    found.push({ file, line, text });
  }
  return found;
}

// TypeDoc plugin: names each documented module by its import specifier (`@cuzkit/fleet/agent`)
// instead of its source folder (`packages/fleet/src/agent`), since that is what users type.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Converter } from "typedoc";

const root = join(import.meta.dirname, "..");

/** `packages/fleet/src/agent` -> `@cuzkit/fleet/agent`; other names stay. */
function importSpecifier(name) {
  const match = /^((?:packages\/[^/]+)|proto)\/src(\/.*)?$/.exec(name);
  if (match === null) return name;
  const manifest = JSON.parse(readFileSync(join(root, match[1], "package.json"), "utf8"));
  return `${manifest.name}${match[2] ?? ""}`;
}

export function load(app) {
  app.converter.on(Converter.EVENT_RESOLVE_BEGIN, (context) => {
    for (const module of context.project.children ?? []) module.name = importSpecifier(module.name);
  });
}

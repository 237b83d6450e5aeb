// publint --strict over a packed tarball, in the calling process (no `npx publint` per package,
// and no second pack: it lints the tarball as the registry would get it). Shared by
// check-packages.mjs and test/packaging.test.ts.
import { readFile } from "node:fs/promises";
import { publint } from "publint";
import { formatMessage } from "publint/utils";

/**
 * Lints `tarball` with publint --strict (every warning is an error). Returns its errors, each
 * formatted as the publint CLI prints it; [] when the package is clean.
 * @param {string} tarball
 * @returns {Promise<string[]>}
 */
export async function publintTarball(tarball) {
  const bytes = await readFile(tarball);
  const { messages, pkg } = await publint({
    pack: { tarball: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) },
    level: "warning",
    strict: true,
  });
  return messages
    .filter((message) => message.type !== "suggestion")
    .map((message) => `${message.type}: ${formatMessage(message, pkg, { color: false }) ?? message.code}`);
}

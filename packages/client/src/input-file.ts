import { type FileHandle, open } from "node:fs/promises";
import { daemonMaxMessageBytes } from "@cuzkit/core";
import { PayloadTooLargeError } from "./errors.js";

// Proof inputs are read whole into one buffer that the request then holds by reference. The
// size is checked on the open file before that read: a 2 GB file mistaken for a C1 must be
// refused at once, not after it has cost 2 GB of memory.

/** Largest C1 or raw vanilla proof file, in bytes: the daemon's 128 MiB message cap. */
export const maxProofInputFileBytes = daemonMaxMessageBytes;

/**
 * Largest vanilla proofs file, in bytes: 4/3 of the message cap plus 1 MiB, because a JSON file
 * of base64 strings decodes to 3/4 of its size (its brackets, quotes and commas take the slack).
 */
export const maxVanillaProofsFileBytes = Math.ceil((daemonMaxMessageBytes * 4) / 3) + 2 ** 20;

/** Options of readProofInputFile. */
export interface ReadProofInputFileOptions {
  /** What the file is, for the error message ("C1 output", "vanilla proofs"). */
  label: string;
  /** Largest accepted size in bytes. Default maxProofInputFileBytes (128 MiB). */
  limitBytes?: number | undefined;
}

/**
 * Reads a proof input file once, after checking its size on the open handle (fstat): a file over
 * `limitBytes` is refused with PayloadTooLargeError (its `sizeBytes` and `limitBytes` set) before
 * any of it is read. A pipe or device (no size to stat) is read at most `limitBytes + 1` bytes.
 * Errors opening or reading it are thrown as they come (ENOENT, EISDIR, ...).
 */
export async function readProofInputFile(
  path: string,
  options: ReadProofInputFileOptions,
): Promise<Uint8Array> {
  const limitBytes = options.limitBytes ?? maxProofInputFileBytes;
  const handle = await open(path, "r");
  try {
    const stats = await handle.stat();
    if (stats.isFile()) {
      if (stats.size > limitBytes) throw tooLarge(options.label, path, stats.size, limitBytes);
      const buffer = await handle.readFile();
      // The file may have grown between the stat and the read.
      if (buffer.byteLength > limitBytes) throw tooLarge(options.label, path, buffer.byteLength, limitBytes);
      return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
    }
    return await readBounded(handle, options.label, path, limitBytes);
  } finally {
    await handle.close();
  }
}

/** Reads a stream-like file (pipe, /dev/stdin) in chunks, refusing it once it passes the limit. */
async function readBounded(
  handle: FileHandle,
  label: string,
  path: string,
  limitBytes: number,
): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const chunk = Buffer.allocUnsafe(Math.min(2 ** 20, limitBytes + 1 - total));
    const { bytesRead } = await handle.read(chunk, 0, chunk.byteLength, null);
    if (bytesRead === 0) break;
    total += bytesRead;
    if (total > limitBytes) throw tooLarge(label, path, undefined, limitBytes);
    chunks.push(chunk.subarray(0, bytesRead));
  }
  const whole = Buffer.concat(chunks, total);
  return new Uint8Array(whole.buffer, whole.byteOffset, whole.byteLength);
}

function tooLarge(label: string, path: string, sizeBytes: number | undefined, limitBytes: number) {
  // Just over the cap both round to the same MiB: then the bytes say which is larger.
  const exact = sizeBytes !== undefined && mib(sizeBytes) === mib(limitBytes);
  const size =
    sizeBytes === undefined ? `over ${mib(limitBytes)}` : exact ? `${sizeBytes} bytes` : mib(sizeBytes);
  const limit = exact ? `${limitBytes} bytes (${mib(limitBytes)})` : mib(limitBytes);
  return new PayloadTooLargeError(
    `the ${label} file ${path} is ${size}, over the ${limit} a proof input may be (the daemon's message cap); nothing was sent`,
    { sizeBytes, limitBytes },
  );
}

function mib(bytes: number): string {
  return `${(bytes / 2 ** 20).toFixed(1)} MiB`;
}

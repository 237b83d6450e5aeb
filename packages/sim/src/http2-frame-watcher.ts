// Watches the HTTP/2 frames a server writes and reports each stream it ends (a DATA or HEADERS
// frame with END_STREAM): how the simulator knows an answer has really left before it crashes
// or stalls on schedule. A server's byte stream is frames only (no connection preface).

const frameHeaderBytes = 9;
const endStreamFlag = 0x1;
const dataFrame = 0x0;
const headersFrame = 0x1;

/** Returns a function to feed with every chunk written, in order. */
export function createHttp2FrameWatcher(onStreamEnd: () => void): (chunk: Uint8Array) => void {
  const header = Buffer.alloc(frameHeaderBytes);
  let headerFill = 0;
  let payloadLeft = 0;
  return (chunk) => {
    let at = 0;
    while (at < chunk.length) {
      if (payloadLeft > 0) {
        const skipped = Math.min(payloadLeft, chunk.length - at);
        payloadLeft -= skipped;
        at += skipped;
        continue;
      }
      const taken = Math.min(frameHeaderBytes - headerFill, chunk.length - at);
      header.set(chunk.subarray(at, at + taken), headerFill);
      headerFill += taken;
      at += taken;
      if (headerFill < frameHeaderBytes) continue;
      headerFill = 0;
      payloadLeft = header.readUIntBE(0, 3);
      const type = header[3];
      const flags = header[4] ?? 0;
      const streamId = header.readUInt32BE(5) & 0x7fffffff;
      if ((type === dataFrame || type === headersFrame) && (flags & endStreamFlag) !== 0 && streamId !== 0) {
        onStreamEnd();
      }
    }
  };
}

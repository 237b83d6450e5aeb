import { describe, expect, it } from "vitest";
import { createHttp2FrameWatcher } from "./http2-frame-watcher.js";

function frame(type: number, flags: number, streamId: number, payloadBytes: number): Buffer {
  const out = Buffer.alloc(9 + payloadBytes, 0xaa);
  out.writeUIntBE(payloadBytes, 0, 3);
  out[3] = type;
  out[4] = flags;
  out.writeUInt32BE(streamId, 5);
  return out;
}

describe("createHttp2FrameWatcher", () => {
  const stream = Buffer.concat([
    frame(0x4, 0x0, 0, 18), // SETTINGS
    frame(0x1, 0x4, 1, 20), // response HEADERS
    frame(0x0, 0x0, 1, 1925), // DATA
    frame(0x1, 0x5, 1, 12), // trailers: HEADERS with END_STREAM
    frame(0x6, 0x1, 0, 8), // PING ack: flag 0x1 is ACK there, not END_STREAM
    frame(0x1, 0x5, 3, 30), // a trailers-only answer
    frame(0x0, 0x1, 5, 0), // DATA with END_STREAM
  ]);

  it("counts every stream the server ends", () => {
    let ended = 0;
    createHttp2FrameWatcher(() => ended++)(stream);
    expect(ended).toBe(3);
  });

  it("counts the same when frames arrive split at every byte", () => {
    let ended = 0;
    const watch = createHttp2FrameWatcher(() => ended++);
    for (let i = 0; i < stream.length; i++) watch(stream.subarray(i, i + 1));
    expect(ended).toBe(3);
  });
});

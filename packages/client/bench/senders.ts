// The ways the benchmark sends one 51 MB PoRep Prove, each as `() => Promise<void>`.
import { connect } from "node:net";
import { create } from "@bufbuild/protobuf";
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { ProvingEngine, type SubmitProofRequest, SubmitProofRequestSchema } from "@cuzkit/proto";
import { createPlainGrpcClient } from "@cuzkit/sim/testing";
import { createCuzkClient } from "../src/index.js";

/** A sender and how to release it. */
export interface Sender {
  send(request: SubmitProofRequest, id: string): Promise<void>;
  close(): Promise<void>;
}

/** Names of the senders. */
export const senderNames = [
  "cuzkit prove",
  "cuzkit proveOnce",
  "connect default",
  "bare grpc-js",
  "raw TCP",
] as const;
/** A sender name. */
export type SenderName = (typeof senderNames)[number];

function expectCompleted(status: number | undefined, name: string) {
  if (status !== 1) throw new Error(`${name}: proof did not complete (status ${status})`);
}

/** Creates one sender against the daemon child's addresses. */
export function createSender(name: SenderName, addresses: { fast: string; raw: string }): Sender {
  switch (name) {
    case "cuzkit prove": {
      const client = createCuzkClient({ address: addresses.fast, maxInFlight: Number.POSITIVE_INFINITY });
      return {
        async send(request, id) {
          const result = await client.prove(create(SubmitProofRequestSchema, { ...request, requestId: id }));
          if (result.proof.byteLength === 0) throw new Error("empty proof");
        },
        close: () => client.close(),
      };
    }
    case "cuzkit proveOnce": {
      const client = createCuzkClient({ address: addresses.fast, maxInFlight: Number.POSITIVE_INFINITY });
      return {
        async send(request, id) {
          const response = await client.proveOnce(
            create(SubmitProofRequestSchema, { ...request, requestId: id }),
          );
          expectCompleted(response.result?.status, name);
        },
        close: () => client.close(),
      };
    }
    case "connect default": {
      // connect-node as documented, protobuf-es serialization: the copies cuzkit avoids.
      const transport = createGrpcTransport({ baseUrl: `http://${addresses.fast}` });
      const client = createClient(ProvingEngine, transport);
      return {
        async send(request, id) {
          const response = await client.prove({ submit: { ...request, requestId: id } });
          expectCompleted(response.result?.status, name);
        },
        close: async () => {},
      };
    }
    case "bare grpc-js": {
      const client = createPlainGrpcClient(addresses.fast);
      return {
        async send(request, id) {
          const response = await client.prove({ submit: { ...request, requestId: id } });
          expectCompleted(response.result?.status, name);
        },
        close: async () => client.close(),
      };
    }
    case "raw TCP": {
      const [host, port] = addresses.raw.split(":");
      const socket = connect(Number(port), host);
      socket.setNoDelay(true);
      let waiting: (() => void) | undefined;
      socket.on("data", () => waiting?.());
      return {
        send(request) {
          const payload = request.vanillaProof;
          return new Promise<void>((resolve, reject) => {
            waiting = resolve;
            const header = Buffer.alloc(8);
            header.writeBigUInt64BE(BigInt(payload.byteLength));
            socket.write(header);
            socket.write(payload, (error) => error && reject(error));
          });
        },
        close: async () => {
          socket.destroy();
        },
      };
    }
  }
}

import type { DescMethod } from "@bufbuild/protobuf";
import { type DescMessage, fromBinary, type MessageShape, toBinary } from "@bufbuild/protobuf";
import { ProvingEngine } from "@cuzkit/proto";
import type { MethodDefinition, ServiceDefinition } from "@grpc/grpc-js";

// grpc-js service definitions built from the protobuf-es descriptors of cuzk.v1.ProvingEngine,
// so the method paths (/cuzk.v1.ProvingEngine/PreloadSRS ...) and message encodings are the
// generated ones, not hand-written copies.

/** The gRPC path of a method: /cuzk.v1.ProvingEngine/<Method>. */
export function methodPath(method: DescMethod): string {
  return `/${method.parent.typeName}/${method.name}`;
}

const encode =
  <Desc extends DescMessage>(schema: Desc) =>
  (message: MessageShape<Desc>): Buffer => {
    const bytes = toBinary(schema, message);
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  };
const decode =
  <Desc extends DescMessage>(schema: Desc) =>
  (bytes: Buffer): MessageShape<Desc> =>
    // A plain Uint8Array view, so decoded bytes fields compare equal to other Uint8Arrays.
    fromBinary(schema, new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));

type MethodOf = (typeof ProvingEngine.methods)[number];

/** Every method of ProvingEngine keyed by its proto name, with the request codec given and protobuf-es responses. */
function definitionWith(
  requestCodec: (
    method: MethodOf,
  ) => Pick<MethodDefinition<unknown, unknown>, "requestSerialize" | "requestDeserialize">,
): ServiceDefinition {
  const definition: Record<string, MethodDefinition<unknown, unknown>> = {};
  for (const method of ProvingEngine.methods) {
    definition[method.name] = {
      path: methodPath(method),
      requestStream: false,
      responseStream: false,
      originalName: method.localName,
      ...requestCodec(method),
      responseSerialize: encode(method.output) as (value: unknown) => Buffer,
      responseDeserialize: decode(method.output),
    };
  }
  return definition;
}

/**
 * The client-side definition: every method of ProvingEngine keyed by its proto name
 * ("SubmitProof", "PreloadSRS", ...), encoding requests and decoding responses with protobuf-es.
 */
export function provingEngineClientDefinition(): ServiceDefinition {
  return definitionWith((method) => ({
    requestSerialize: encode(method.input) as (value: unknown) => Buffer,
    requestDeserialize: decode(method.input),
  }));
}

/**
 * The server-side definition: requests arrive as raw bytes (so the handler can enforce the
 * daemon's 128 MiB cap with tonic's OUT_OF_RANGE before decoding), responses are encoded with
 * protobuf-es.
 */
export function provingEngineServerDefinition(): ServiceDefinition {
  return definitionWith(() => ({
    requestSerialize: (value: unknown) => value as Buffer,
    requestDeserialize: (bytes: Buffer) => bytes,
  }));
}

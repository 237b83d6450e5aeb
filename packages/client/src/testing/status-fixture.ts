import { create as createMessage } from "@bufbuild/protobuf";
import { type GetStatusResponse, GetStatusResponseSchema } from "@cuzkit/proto";

/** A GetStatus response with the given uptime, for tests. */
export function create(uptimeSeconds: number): GetStatusResponse {
  return createMessage(GetStatusResponseSchema, { uptimeSeconds: BigInt(uptimeSeconds) });
}

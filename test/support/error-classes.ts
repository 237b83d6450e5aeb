import { CuzkitError } from "@cuzkit/core";

/** An error class as every cuzkit package writes it: `new XError(message, options)`. */
export type CuzkitErrorClass = new (message: string, options: Record<string, unknown>) => CuzkitError;

/** The context some classes require (an endpoint, a status, a gRPC code), given to all. */
export const errorContext = {
  endpoint: "GET /api/v0/instances/",
  label: "cuzkit-abc123",
  offerId: 7,
  instanceId: "i-1",
  status: 403,
  grpcCode: 3,
  searched: [],
  actualStatus: null,
  thresholdMs: 1000,
  requestId: "porep-1000-7-a1-xyz",
  daemonMessage: "bad input",
  limitBytes: 1,
};

/** Every CuzkitError subclass a module exports, by its export name. */
export function exportedErrorClasses(module: object): [name: string, errorClass: CuzkitErrorClass][] {
  return Object.entries(module).filter(
    (entry): entry is [string, CuzkitErrorClass] =>
      typeof entry[1] === "function" && entry[1].prototype instanceof CuzkitError,
  );
}

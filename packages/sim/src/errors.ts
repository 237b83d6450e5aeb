import { CuzkitError } from "@cuzkit/core";

/** A PoRep C1 input the simulated daemon (like the real one) cannot parse. */
export class C1ParseError extends CuzkitError {
  constructor(message: string, cause?: unknown) {
    super("C1_PARSE_FAILED", message, {
      hint: 'send the C1 wrapper Curio writes: {"SectorNum": n, "Phase1Out": "<base64 of the C1 JSON>", "SectorSize": bytes}, or build one with createSyntheticC1()',
      retryable: false,
      cause,
    });
  }
}

/** The simulated daemon could not bind its listen address or status address. */
export class SimListenError extends CuzkitError {
  constructor(message: string, hint: string, cause?: unknown) {
    super("SIM_LISTEN_FAILED", message, { hint, retryable: true, cause });
  }
}

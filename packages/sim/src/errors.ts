import { CuzkitError, type CuzkitErrorOptions } from "@cuzkit/core";

/** A PoRep C1 input the simulated daemon (like the real one) cannot parse. */
export class C1ParseError extends CuzkitError<"C1_PARSE_FAILED"> {
  constructor(message: string, options: Omit<CuzkitErrorOptions<"C1_PARSE_FAILED">, "code"> = {}) {
    super(message, {
      ...options,
      code: "C1_PARSE_FAILED",
      hint:
        options.hint ??
        'send the C1 wrapper Curio writes: {"SectorNum": n, "Phase1Out": "<base64 of the C1 JSON>", "SectorSize": bytes}, or build one with createSyntheticC1()',
    });
  }
}

/** The simulated daemon could not bind its listen address or status address. */
export class SimListenError extends CuzkitError<"SIM_LISTEN_FAILED"> {
  constructor(message: string, options: Omit<CuzkitErrorOptions<"SIM_LISTEN_FAILED">, "code"> = {}) {
    super(message, { retryable: true, ...options, code: "SIM_LISTEN_FAILED" });
  }
}

/** A wait on the simulated daemon (or a call to it) that can no longer be met: the daemon was stopped. */
export class SimStoppedError extends CuzkitError<"SIM_STOPPED"> {
  constructor(message: string, options: Omit<CuzkitErrorOptions<"SIM_STOPPED">, "code"> = {}) {
    super(message, { ...options, code: "SIM_STOPPED", hint: options.hint ?? "start a new simulated daemon" });
  }
}

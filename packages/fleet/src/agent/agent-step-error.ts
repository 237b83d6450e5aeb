import { CuzkitError } from "@cuzkit/core";
import { FleetError, type FleetErrorOptions } from "../errors.js";
import type { FailureBody } from "../protocol/requests.js";

type StepCode = "PARAMS_COMMAND_FAILED" | "NO_SAFE_CONFIG" | "WARMUP_FAILED";

/** A failed step, with the error class the manager records. */
export class AgentStepError extends FleetError<StepCode> {
  /** The step that failed. */
  readonly step: FailureBody["phase"];
  /** The error class the manager records (the class the machine's own tool would raise). */
  readonly errorClass: string;

  constructor(
    message: string,
    options: FleetErrorOptions<StepCode> & { step: FailureBody["phase"]; errorClass: string },
  ) {
    super(message, { ...options, hint: options.hint ?? `the ${options.step} step failed on the machine` });
    this.step = options.step;
    this.errorClass = options.errorClass;
  }
}

/** The class name of a thrown value, as the failure report names it. */
export const errorClassOf = (error: unknown) =>
  error instanceof Error
    ? error.constructor.name || error.name
    : typeof error === "string"
      ? "Error"
      : "Unknown";
/** A thrown value's error code (INTERNAL when it has none). */
export const codeOf = (error: unknown) => (CuzkitError.is(error) ? error.code : "INTERNAL");
/** A thrown value's message, bounded for the failure report. */
export const messageOf = (error: unknown) =>
  (error instanceof Error ? error.message : String(error)).slice(0, 4000);

/** The failure report of a step: an AgentStepError's own class and code, else the thrown value's. */
export function failureBodyOf(step: FailureBody["phase"], error: unknown): FailureBody {
  return error instanceof AgentStepError
    ? { phase: step, errorClass: error.errorClass, code: error.code, message: error.message }
    : { phase: step, errorClass: errorClassOf(error), code: codeOf(error), message: messageOf(error) };
}

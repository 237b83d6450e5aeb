// The --fault flag of `cuzkit sim`: its syntax and how it becomes the simulator's SimFaults.
import { InvalidInputError } from "@cuzkit/core";
import type { SimFaults } from "@cuzkit/sim";
import { parseWholeNumber } from "../parse.js";

/** The faults --fault names. */
const faultNames = [
  "crash-after",
  "crash-at",
  "fail-next",
  "hold-after",
  "stall-after",
  "stick-after",
  "start-delay",
] as const;

const faultHint =
  "use crash-after=N, crash-at=MS, fail-next=N[:message], hold-after=N, stall-after=N, stick-after=N or start-delay=MS, e.g. --fault crash-after=3";

function wholeNumber(what: string, text: string, min: number): number {
  return parseWholeNumber(text, { what, min, example: String(Math.max(min, 3)) });
}

/** Parses the repeatable --fault flags into SimFaults; an unknown or incomplete one is refused. */
export function parseFaults(specs: readonly string[]): SimFaults {
  const faults: SimFaults = {};
  for (const spec of specs) {
    const at = spec.indexOf("=");
    const name = at < 0 ? spec : spec.slice(0, at);
    const value = at < 0 ? "" : spec.slice(at + 1);
    if (!(faultNames as readonly string[]).includes(name) || value === "") {
      throw new InvalidInputError(`unknown or incomplete fault "${spec}"`, { hint: faultHint });
    }
    switch (name as (typeof faultNames)[number]) {
      case "crash-after":
        faults.crashAfterProofs = wholeNumber("--fault crash-after", value, 1);
        break;
      case "crash-at":
        faults.crashAtMs = wholeNumber("--fault crash-at", value, 0);
        break;
      case "hold-after":
        faults.holdAfterProofs = wholeNumber("--fault hold-after", value, 1);
        break;
      case "stall-after":
        faults.stallAfterProofs = wholeNumber("--fault stall-after", value, 1);
        break;
      case "stick-after":
        faults.stickAfterProofs = wholeNumber("--fault stick-after", value, 0);
        break;
      case "start-delay":
        faults.startDelayMs = wholeNumber("--fault start-delay", value, 0);
        break;
      case "fail-next": {
        const colon = value.indexOf(":");
        const count = wholeNumber("--fault fail-next", colon < 0 ? value : value.slice(0, colon), 1);
        faults.failNextProofs = colon < 0 ? { count } : { count, message: value.slice(colon + 1) };
        break;
      }
    }
  }
  return faults;
}

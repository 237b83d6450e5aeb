import { benchDefaults } from "@cuzkit/bench";
import { defaultDeadlines, defaultResubmit, defaultStuck } from "@cuzkit/client";
import { defaultTimeScale } from "@cuzkit/sim";
import { defaultCurioCuzkAddress, tuneDefaults } from "@cuzkit/tuner";
import { defaultDiskGb, defaultLogOptions, defaultWaitOptions } from "@cuzkit/vast";
import { describe, expect, it } from "vitest";
import {
  benchHelpDefaults,
  clientHelpDefaults,
  simHelpTimeScale,
  tunerHelpDefaults,
  vastHelpDefaults,
} from "./help-defaults.js";

// The help must state the defaults the libraries apply: a library default changed without its
// copy here fails this test instead of letting the help lie.
describe("the defaults stated in the help", () => {
  it("are the libraries' own", () => {
    expect(clientHelpDefaults).toEqual({
      proofMs: defaultDeadlines.proofMs,
      warmupProofMs: defaultDeadlines.warmupProofMs,
      stuckMinMs: defaultStuck.minMs,
      stuckMarginFactor: defaultStuck.marginFactor,
      resubmit: defaultResubmit,
    });
    // The help lists the kinds in this order.
    expect(Object.keys(clientHelpDefaults.resubmit)).toEqual(Object.keys(defaultResubmit));
    expect(benchHelpDefaults).toEqual({
      resubmit: benchDefaults.resubmit,
      readyTimeoutMs: benchDefaults.readyTimeoutMs,
      maxRestarts: benchDefaults.maxRestarts,
    });
    expect(simHelpTimeScale).toBe(defaultTimeScale);
    expect(tunerHelpDefaults).toEqual({
      dialect: tuneDefaults.dialect,
      workload: tuneDefaults.workload,
      safetyMarginFraction: tuneDefaults.safetyMarginFraction,
      minSafetyMarginBytes: tuneDefaults.minSafetyMarginBytes,
      postSlots: tuneDefaults.postSlots,
      minProveTimeoutSec: tuneDefaults.minProveTimeoutSec,
      curioCuzkAddress: defaultCurioCuzkAddress,
    });
    expect(vastHelpDefaults).toEqual({
      logTail: defaultLogOptions.tail,
      logPollTimeoutMs: defaultLogOptions.pollTimeoutMs,
      diskGb: defaultDiskGb,
      waitTimeoutMs: defaultWaitOptions.timeoutMs,
    });
  });
});

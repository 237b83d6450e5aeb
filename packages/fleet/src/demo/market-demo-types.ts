import type { SubmitProofInput } from "@cuzkit/client";
import type { ClassCalibration } from "../economics/calibration.js";
import type { FleetDecision } from "../economics/run-planner.js";
import type { RankedOffer } from "../manager/rank-offers.js";
import type { HostPerformanceRecord } from "../store/host-performance.js";
import type { CuzkitCommand } from "../testing/market.js";
import type { DemoOffer } from "./demo-market.js";

/** Options of {@link runMarketDemo}. */
export interface MarketDemoOptions {
  /** How to run `cuzkit` for the agents and their sims. Required. */
  cuzkit: CuzkitCommand;
  /** The work a kept machine's daemon is sent (a synthetic PoRep). Required. */
  request: SubmitProofInput;
  /** Where the lines go. Required. */
  write: (line: string) => void;
  /** Simulated hours of operation. Default 10. */
  hours?: number | undefined;
  /** Real seconds per simulated second. Default 0.001 (a simulated hour takes 3.6 s). */
  timeScale?: number | undefined;
  /** The per-machine spread's seed. Default 1. */
  seed?: number | undefined;
  /** Ends the run early (the summary is still printed, every process stopped), such as on Ctrl-C. Default: none. */
  signal?: AbortSignal | undefined;
  /** Ends the run early once this says so (checked after each fleet run step); `hours` is then the cap. Default: run all the hours. */
  until?: ((progress: DemoProgress) => boolean) | undefined;
}

/** Where the run stands, for {@link MarketDemoOptions.until}. */
export interface DemoProgress {
  decisions: ReadonlyArray<{ atHours: number; decision: FleetDecision }>;
  /** Production reports the manager has kept so far. */
  productionReports: number;
  /** Instances that failed so far (a deadline, a death, a failed step). */
  failedInstances: number;
}

/** How one rented instance ended (or stands at the end). */
export interface DemoInstanceOutcome {
  instanceId: string;
  offerId: number;
  offer: DemoOffer;
  /** The final state: `active` when kept to the end, else `destroyed` (or on its way). */
  state: string;
  /** The benchmark's verdict and measured proofs/hour, when it reported. */
  verdict: string | undefined;
  measuredProofsPerHour: number | undefined;
  /** Why it was destroyed: the fleet run's decision, the keep rule, a deadline, a death. */
  why: string | undefined;
  /** Simulated hours it was billed. */
  billedHours: number;
  /** Its true production rate: the proofs the market saw its daemon complete per hour; undefined under 10 proofs or half an hour of them. */
  trueProofsPerHour: number | undefined;
}

/** What the demo showed, for tests. */
export interface MarketDemoSummary {
  offers: DemoOffer[];
  before: RankedOffer[];
  after: RankedOffer[];
  decisions: Array<{ atHours: number; decision: FleetDecision }>;
  instances: DemoInstanceOutcome[];
  calibration: Map<string, ClassCalibration>;
  /** Per class: the geometric mean of true production rate over the model, of its machines that served. */
  classTruth: Map<string, number>;
  performance: HostPerformanceRecord[];
  /** Proofs the kept machines' daemons completed in production, as their agents counted and reported them. */
  productionProofs: number;
  /** What every rental cost, vetting included. */
  dollars: number;
  /** Proofs the market saw the daemons complete (its own count, for checking the fleet's). */
  marketCompletedProofs: number;
  /** dollars x 1000 / productionProofs. */
  costPer1000: number;
  /** The true $ per 1000 proofs of the best machine that served (its price over the rate the market counted). */
  bestTrueCostPer1000: number;
}

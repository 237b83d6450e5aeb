import type { Clock, Logger } from "@cuzkit/core";
import type { VastClient } from "@cuzkit/vast";
import type { CurioLink } from "../curio/curio-link.js";
import type { FleetStore } from "../store/fleet-store.js";
import type { ResolvedFleetConfig } from "./config.js";

/** The Vast calls the manager makes. */
export type FleetVast = Pick<
  VastClient,
  "searchOffers" | "createInstance" | "showInstance" | "listInstances" | "destroyInstance"
>;

/**
 * Called at each named step of the manager's work, before and after every write and call;
 * tests kill the process here to prove a restart recovers from any of them. Default: nothing.
 */
export type Checkpoint = (name: string) => void;

/** What every part of the manager works with. */
export interface ManagerContext {
  store: FleetStore;
  vast: FleetVast;
  config: ResolvedFleetConfig;
  clock: Clock;
  logger: Logger;
  random: () => number;
  checkpoint: Checkpoint;
  /** When this manager process started (epoch ms): silence while it was down is not an agent's fault. */
  startedAt: number;
  /** The Curio cluster the fleet's machines join, when there is one. */
  curio: CurioLink | undefined;
  /**
   * Aborts when the manager stops (FleetManager.stop): the drains of its own destroys (replacements,
   * trims) stop with their state stored, to be resumed at the next start. Default: never.
   */
  stopSignal?: (() => AbortSignal) | undefined;
  /**
   * Runs a long job for an instance (a Curio drain and its destroy) after the caller returns, one
   * at a time per instance (a second while one runs is dropped); FleetManager.stop aborts its
   * signal and awaits it. Default: none, and the caller awaits the job itself.
   */
  runInBackground?: ((id: string, job: (signal: AbortSignal) => Promise<void>) => void) | undefined;
}

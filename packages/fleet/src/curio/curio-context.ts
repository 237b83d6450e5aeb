import type { Clock, DaemonDialect, Logger } from "@cuzkit/core";
import type { VastClient } from "@cuzkit/vast";
import type { FleetStore } from "../store/fleet-store.js";
import type { CurioLink } from "./curio-link.js";

/**
 * What the Curio adapter works with: the part of the manager's context it reads, declared here so
 * curio/ sits below manager/ (the manager passes its own context, which has all of this).
 */
export interface CurioContext {
  store: FleetStore;
  /** Only the instance list: a mapping checks which labelled instances Vast.ai still has. */
  vast: Pick<VastClient, "listInstances">;
  config: { dialect: DaemonDialect };
  clock: Clock;
  logger: Logger;
  random: () => number;
  /** The Curio cluster the fleet's machines join, when there is one. */
  curio: CurioLink | undefined;
  /** Aborts when the manager stops: a drain stops with its state stored. Default: never. */
  stopSignal?: (() => AbortSignal) | undefined;
}

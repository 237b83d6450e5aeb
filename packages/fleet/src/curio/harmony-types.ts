// The shapes the fleet reads out of Curio's HarmonyDB (see harmony-source.ts for the tables).

/** Curio's proving task types the fleet counts (tasks/tasknames/names.go). */
export const curioProofTaskTypes = ["PoRep", "UpdateProve", "PSProve"] as const;

/** A proving task type. */
export type CurioProofTaskType = (typeof curioProofTaskTypes)[number];

/** One Curio node. */
export interface CurioMachine {
  /** harmony_machines.id. */
  id: number;
  /** The address the node advertises, `host:port`. */
  hostAndPort: string;
  /** Curio's cordon flag: true keeps new tasks off it. */
  unschedulable: boolean;
  /** harmony_machine_details.machine_name (Curio's `--name`); undefined when unnamed or not yet written. */
  name: string | undefined;
}

/** One machine's production of one task type over a window. */
export interface CurioProduction {
  hostAndPort: string;
  taskType: CurioProofTaskType;
  /** Successful tasks that ended in the window. */
  completed: number;
  /** Failed tasks that ended in the window. */
  failed: number;
  /** Successful proofs per hour over the window. */
  proofsPerHour: number;
  /** Mean work time of the successful tasks, ms; undefined when none. */
  meanTaskMs: number | undefined;
}

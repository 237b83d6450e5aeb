import { mayBeBilling } from "../lifecycle.js";
import type { InstanceRecord } from "../store/records.js";
import type { CurioContext } from "./curio-context.js";
import { type CurioMachine, type HarmonySource, hostOf } from "./harmony-source.js";

/** A fleet instance and the Curio node running on it. */
export interface CurioInstance {
  instance: InstanceRecord;
  machine: CurioMachine;
  /** How the node was found: its Curio name is the instance's, or it is the only node at its IP. */
  matchedBy: "name" | "address";
}

/** An instance whose Curio node cannot be told apart: nothing is cordoned or destroyed for it. */
export interface CurioIdentityConflict {
  instance: InstanceRecord;
  /** The nodes that could be its own. */
  candidates: CurioMachine[];
  /** Why, in a sentence (the event's and the status's text). */
  reason: string;
}

/** The fleet's live instances matched to Curio nodes. */
export interface CurioMapping {
  matched: CurioInstance[];
  conflicts: CurioIdentityConflict[];
  /** Live instances with no Curio node (yet). */
  unmatched: InstanceRecord[];
}

/**
 * The Curio node name of an instance: its Vast label, `cuzkit-fleet-<fleet>-<id>`, unique per
 * fleet and instance. The agent starts `--serve-command` with CURIO_NODE_NAME set to it (the env
 * of `curio run --name`, cmd/curio/run.go), and Curio stores it in
 * harmony_machine_details.machine_name.
 */
export const curioNodeNameOf = (instance: Pick<InstanceRecord, "label">): string => instance.label;

const nodeText = (m: CurioMachine) =>
  `${m.id} (${m.hostAndPort}${m.name === undefined ? "" : `, ${m.name}`})`;

/**
 * Matches the fleet's live instances to Curio nodes. First by identity: the node whose
 * machine_name is the instance's label. Else by address, only when it is unambiguous: the one
 * unnamed node whose `host_and_port` host is the instance's public IP (Vast's `public_ipaddr`),
 * claimed by no other instance. Two named nodes, two nodes at the IP, or one node at an IP that
 * two instances share, are conflicts. Instances with neither are not Curio nodes (Curio not
 * started yet, or advertising another address, such as the container's own for `--listen
 * 0.0.0.0:12300`).
 */
export async function mapCurioInstances(
  ctx: CurioContext,
  harmony: HarmonySource | undefined = ctx.curio?.harmony,
): Promise<CurioMapping> {
  if (harmony === undefined) return { matched: [], conflicts: [], unmatched: [] };
  const live = (await ctx.store.list()).filter((r) => r.vastId !== undefined && mayBeBilling(r.state));
  if (live.length === 0) return { matched: [], conflicts: [], unmatched: [] };
  const machines = await harmony.machines();
  const matched: CurioInstance[] = [];
  const conflicts: CurioIdentityConflict[] = [];
  const unnamed: InstanceRecord[] = [];
  for (const instance of live) {
    const name = curioNodeNameOf(instance);
    const named = machines.filter((m) => m.name === name);
    if (named.length === 1) matched.push({ instance, machine: named[0] as CurioMachine, matchedBy: "name" });
    else if (named.length > 1)
      conflicts.push({
        instance,
        candidates: named,
        reason: `${named.length} Curio nodes are named ${name}: ${named.map(nodeText).join(", ")}`,
      });
    else unnamed.push(instance);
  }
  const withNode = () => {
    const found = new Set([...matched, ...conflicts].map((c) => c.instance.id));
    return { matched, conflicts, unmatched: live.filter((r) => !found.has(r.id)) };
  };
  if (unnamed.length === 0) return withNode();
  // The fallback: Vast's public IP of each instance, against nodes that carry no name.
  const ipOf = new Map<number, string>();
  for await (const instance of ctx.vast.listInstances()) {
    if (instance.publicIpaddr) ipOf.set(instance.id, instance.publicIpaddr.trim());
  }
  const anonymous = machines.filter((m) => m.name === undefined);
  const byAddress: { instance: InstanceRecord; machine: CurioMachine; ip: string }[] = [];
  for (const instance of unnamed) {
    const ip = ipOf.get(instance.vastId as number);
    if (ip === undefined) continue;
    const atIp = anonymous.filter((m) => hostOf(m.hostAndPort) === ip);
    if (atIp.length === 1) byAddress.push({ instance, machine: atIp[0] as CurioMachine, ip });
    else if (atIp.length > 1)
      conflicts.push({
        instance,
        candidates: atIp,
        reason: `${atIp.length} unnamed Curio nodes at ${ip}, none named ${curioNodeNameOf(instance)}: ${atIp.map(nodeText).join(", ")}`,
      });
  }
  for (const entry of byAddress) {
    const sharing = byAddress.filter((o) => o.machine.id === entry.machine.id).map((o) => o.instance.id);
    if (sharing.length === 1)
      matched.push({ instance: entry.instance, machine: entry.machine, matchedBy: "address" });
    else
      conflicts.push({
        instance: entry.instance,
        candidates: [entry.machine],
        reason: `Curio node ${nodeText(entry.machine)} is the only one at ${entry.ip}, which instances ${sharing.join(", ")} share`,
      });
  }
  return withNode();
}

/** The live instances that are Curio nodes (conflicts left out: see mapCurioInstances). */
export async function curioInstances(
  ctx: CurioContext,
  harmony: HarmonySource | undefined = ctx.curio?.harmony,
): Promise<CurioInstance[]> {
  return (await mapCurioInstances(ctx, harmony)).matched;
}

/** What is known of one instance's Curio node. */
export type CurioNodeOf =
  | { kind: "node"; machine: CurioMachine; matchedBy: "name" | "address" }
  | { kind: "conflict"; candidates: CurioMachine[]; reason: string }
  | { kind: "none" };

/** The Curio node of one instance, a conflict, or none. */
export async function curioNodeOf(ctx: CurioContext, instanceId: string): Promise<CurioNodeOf> {
  const { matched, conflicts } = await mapCurioInstances(ctx);
  const found = matched.find((c) => c.instance.id === instanceId);
  if (found !== undefined) return { kind: "node", machine: found.machine, matchedBy: found.matchedBy };
  const conflict = conflicts.find((c) => c.instance.id === instanceId);
  if (conflict !== undefined)
    return { kind: "conflict", candidates: conflict.candidates, reason: conflict.reason };
  return { kind: "none" };
}

import { mayBeBilling } from "../lifecycle.js";
import type { ManagerContext } from "../manager/context.js";
import type { InstanceRecord } from "../store/records.js";
import { type CurioMachine, hostOf } from "./harmony-source.js";

/** A fleet instance and the Curio node running on it. */
export interface CurioInstance {
  instance: InstanceRecord;
  machine: CurioMachine;
}

/**
 * Matches the fleet's live instances to Curio nodes: a node whose `host_and_port` host is the
 * instance's public IP (Vast's `public_ipaddr`) runs on it. Instances without a match are not
 * Curio machines (Curio not started yet, or advertising another address).
 */
export async function curioInstances(
  ctx: ManagerContext,
  harmony = ctx.curio?.harmony,
): Promise<CurioInstance[]> {
  if (harmony === undefined) return [];
  const live = (await ctx.store.list()).filter((r) => r.vastId !== undefined && mayBeBilling(r.state));
  if (live.length === 0) return [];
  const ipOf = new Map<number, string>();
  for await (const instance of ctx.vast.listInstances()) {
    if (instance.publicIpaddr) ipOf.set(instance.id, instance.publicIpaddr.trim());
  }
  const byHost = new Map<string, CurioMachine>();
  for (const machine of await harmony.machines()) byHost.set(hostOf(machine.hostAndPort), machine);
  const out: CurioInstance[] = [];
  for (const instance of live) {
    const ip = ipOf.get(instance.vastId as number);
    const machine = ip === undefined ? undefined : byHost.get(ip);
    if (machine !== undefined) out.push({ instance, machine });
  }
  return out;
}

/** The Curio node of one instance, if it is one. */
export async function curioMachineOf(
  ctx: ManagerContext,
  instanceId: string,
): Promise<CurioMachine | undefined> {
  return (await curioInstances(ctx)).find((c) => c.instance.id === instanceId)?.machine;
}

import { matchesAll } from "../offer-query.js";
import { htmlNotFound, instanceNotFound, invalidArgs, isRecord } from "../replies.js";
import { addInstance } from "../state.js";
import type { RouteHandler } from "./request.js";

// Instance routes: create (PUT an ask), the v1 list (the v0 list is gone), show, change,
// destroy, reboot, and SSH key attachment.

/** PUT /api/v0/asks/:id/: rents the offer (a second purchase of the same offer is accepted, as Vast.ai does). */
export const createInstance: RouteHandler = (state, { body }, match) => {
  const offerId = Number(match[1]);
  const offer = state.offers.find((o) => o.id === offerId);
  if (!offer) {
    return {
      status: 404,
      body: { success: false, error: "no_such_ask", msg: `Instance type by id ${offerId} is not available.` },
    };
  }
  if (state.balance <= 0)
    return {
      status: 411,
      body: { success: false, error: "insufficient_credit", msg: "Insufficient credit" },
    };
  const request = isRecord(body) ? body : {};
  if (typeof request.image !== "string" || request.image === "") return invalidArgs("image is required");
  // Vast.ai accepts a second purchase of the same offer: no check of `rented` here.
  offer.rented = true;
  const id = addInstance(state, {
    label: typeof request.label === "string" ? request.label : null,
    actual_status: state.bootSequence[0] ?? null,
    status_msg: "pulling image",
    machine_id: offer.machine_id,
    gpu_name: offer.gpu_name,
    num_gpus: offer.num_gpus,
    gpu_ram: offer.gpu_ram,
    cpu_ram: offer.cpu_ram,
    disk_space: request.disk,
    dph_total: offer.dph_total,
    is_bid: typeof request.price === "number",
    image_uuid: request.image,
    extra_env: isRecord(request.env) ? Object.entries(request.env) : [],
  });
  state.bootStep.set(id, 0);
  return { status: 200, body: { success: true, new_contract: id, instance_api_key: `inst-key-${id}` } };
};

/** GET /api/v0/instances/: retired (410). */
export const listInstancesV0: RouteHandler = () => ({
  status: 410,
  body: {
    success: false,
    error: "deprecated_endpoint",
    msg: "/api/v0/instances/ is deprecated. Use /api/v1/instances/ instead.",
  },
});

/** The filter and the paging token of a list query; undefined when either does not parse. */
function listQuery(query: Record<string, string>): { filters: unknown; afterId: number } | undefined {
  let filters: unknown = {};
  let afterId = 0;
  try {
    if (query.select_filters) filters = JSON.parse(query.select_filters);
    if (query.after_token) {
      const decoded = /^after:(\d+)$/.exec(Buffer.from(query.after_token, "base64url").toString("utf8"));
      if (!decoded) throw new Error("bad token");
      afterId = Number(decoded[1]);
    }
  } catch {
    return undefined;
  }
  return { filters, afterId };
}

/** Instances per label, over all instances ("" for none). */
function labelCounts(all: Record<string, unknown>[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of all) {
    const label = typeof r.label === "string" ? r.label : "";
    counts[label] = (counts[label] ?? 0) + 1;
  }
  return counts;
}

/** GET /api/v1/instances/: filtered, in id order, paged by `after_token` (at most 25 a page). */
export const listInstances: RouteHandler = (state, { query }) => {
  const parsed = listQuery(query);
  if (!parsed) return invalidArgs("bad select_filters or after_token");
  const { filters, afterId } = parsed;
  let limit = query.limit === undefined ? 25 : Number(query.limit);
  if (!(limit > 0)) limit = 5;
  limit = Math.min(limit, 25);
  const all = [...state.instances.values()].sort((a, b) => (a.id as number) - (b.id as number));
  const matching = all.filter((record) => matchesAll(record, isRecord(filters) ? filters : {}, []));
  const after = matching.filter((r) => (r.id as number) > afterId);
  const page = after.slice(0, limit);
  const more = after.length > page.length;
  const last = page.at(-1);
  return {
    status: 200,
    body: {
      success: true,
      instances_found: matching.length,
      total_instances: all.length,
      label_counts: labelCounts(all),
      next_token: more && last ? Buffer.from(`after:${last.id}`).toString("base64url") : null,
      instances: page,
    },
  };
};

/** GET /api/v0/instances/:id/: the record (null when gone); a booting instance moves one step along its boot sequence. */
export const showInstance: RouteHandler = (state, _request, match) => {
  const id = Number(match[1]);
  const record = state.instances.get(id);
  const step = state.bootStep.get(id);
  if (record && step !== undefined) {
    const { bootSequence } = state;
    record.actual_status = bootSequence[Math.min(step, bootSequence.length - 1)] ?? null;
    state.bootStep.set(id, step + 1);
  }
  return { status: 200, body: { instances: record ?? null } };
};

/** PUT /api/v0/instances/:id/: a state change (stops the boot sequence) or a new label. */
export const changeInstance: RouteHandler = (state, { body }, match) => {
  const id = Number(match[1]);
  const record = state.instances.get(id);
  if (!record) return instanceNotFound();
  const change = isRecord(body) ? body : {};
  if (typeof change.state === "string") {
    record.intended_status = change.state;
    record.actual_status = change.state;
    state.bootStep.delete(id);
  }
  if (typeof change.label === "string") record.label = change.label;
  return { status: 200, body: { success: true } };
};

/** DELETE /api/v0/instances/:id/. */
export const destroyInstance: RouteHandler = (state, _request, match) => {
  const id = Number(match[1]);
  if (!state.instances.delete(id)) return instanceNotFound();
  return { status: 200, body: { success: true } };
};

/** Another method on /api/v0/instances/:id/: not found for an unknown instance, else nothing serves it. */
export const otherInstanceMethod: RouteHandler = (state, _request, match) =>
  state.instances.has(Number(match[1])) ? htmlNotFound() : instanceNotFound();

/** PUT /api/v0/instances/reboot/:id/. */
export const rebootInstance: RouteHandler = (state, _request, match) => {
  const record = state.instances.get(Number(match[1]));
  if (!record) return instanceNotFound();
  record.actual_status = "running";
  return { status: 200, body: { success: true } };
};

/** POST /api/v0/instances/:id/ssh/. */
export const attachSshKey: RouteHandler = (state, _request, match) => {
  if (!state.instances.has(Number(match[1]))) return instanceNotFound();
  return { status: 200, body: { success: true, msg: "SSH key attached" } };
};

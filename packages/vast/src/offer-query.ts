import { InvalidInputError, parseByteSize, type UnitRounding, withDefaults } from "@cuzkit/core";
import { bytesToVastDisk, bytesToVastMemory, gpuMemoryClassTolerance } from "./units.js";

/**
 * How a field's values travel: plain, or bytes that the builder converts to the API's MiB
 * (`memory`; `gpuMemory` also gets the card-class tolerance) or GB (`disk`).
 */
type FieldKind = "number" | "string" | "boolean" | "memory" | "gpuMemory" | "disk";

/**
 * The offer fields a query may filter or order on, by our name, with the API column and the
 * unit. `...Bytes` fields take bytes (or a size string such as "256GiB") and are converted
 * to the API's MiB (memory) or GB (disk). Prices are $/hour.
 */
export const offerFields = {
  id: { api: "id", kind: "number" },
  machineId: { api: "machine_id", kind: "number" },
  hostId: { api: "host_id", kind: "number" },
  gpuName: { api: "gpu_name", kind: "string" },
  gpuArch: { api: "gpu_arch", kind: "string" },
  numGpus: { api: "num_gpus", kind: "number" },
  gpuFrac: { api: "gpu_frac", kind: "number" },
  gpuRamBytes: { api: "gpu_ram", kind: "gpuMemory" },
  gpuTotalRamBytes: { api: "gpu_total_ram", kind: "gpuMemory" },
  gpuMemBandwidthGBps: { api: "gpu_mem_bw", kind: "number" },
  computeCap: { api: "compute_cap", kind: "number" },
  cudaMaxGood: { api: "cuda_max_good", kind: "number" },
  cpuName: { api: "cpu_name", kind: "string" },
  cpuArch: { api: "cpu_arch", kind: "string" },
  cpuCores: { api: "cpu_cores", kind: "number" },
  cpuCoresEffective: { api: "cpu_cores_effective", kind: "number" },
  cpuRamBytes: { api: "cpu_ram", kind: "memory" },
  diskSpaceBytes: { api: "disk_space", kind: "disk" },
  diskBandwidthMBps: { api: "disk_bw", kind: "number" },
  inetUpMbps: { api: "inet_up", kind: "number" },
  inetDownMbps: { api: "inet_down", kind: "number" },
  directPortCount: { api: "direct_port_count", kind: "number" },
  pcieBandwidthGBps: { api: "pcie_bw", kind: "number" },
  dphTotal: { api: "dph_total", kind: "number" },
  dphBase: { api: "dph_base", kind: "number" },
  minBid: { api: "min_bid", kind: "number" },
  dlperf: { api: "dlperf", kind: "number" },
  dlperfPerDphTotal: { api: "dlperf_per_dphtotal", kind: "number" },
  totalFlops: { api: "total_flops", kind: "number" },
  reliability: { api: "reliability", kind: "number" },
  score: { api: "score", kind: "number" },
  verified: { api: "verified", kind: "boolean" },
  verification: { api: "verification", kind: "string" },
  rentable: { api: "rentable", kind: "boolean" },
  rented: { api: "rented", kind: "boolean" },
  staticIp: { api: "static_ip", kind: "boolean" },
  datacenter: { api: "datacenter", kind: "boolean" },
  geolocation: { api: "geolocation", kind: "string" },
  durationSeconds: { api: "duration", kind: "number" },
  hostingType: { api: "hosting_type", kind: "number" },
} as const satisfies Record<string, { api: string; kind: FieldKind }>;

/** A field name of `offerFields`. */
export type OfferField = keyof typeof offerFields;

type ValueOfKind<K extends FieldKind> = K extends "string"
  ? string
  : K extends "boolean"
    ? boolean
    : K extends "memory" | "gpuMemory" | "disk"
      ? number | string
      : number;

/** The query operators the API knows. `in`/`notin` take arrays. */
export type QueryOperator = "eq" | "neq" | "gt" | "gte" | "lt" | "lte" | "in" | "notin";

/** A condition: a bare value (meaning eq), or operators, several allowed on one field. */
export type Condition<T> =
  | T
  | {
      eq?: T | undefined;
      neq?: T | undefined;
      gt?: T | undefined;
      gte?: T | undefined;
      lt?: T | undefined;
      lte?: T | undefined;
      in?: readonly T[] | undefined;
      notin?: readonly T[] | undefined;
    };

/** Filters by our field names, each typed by its unit. */
export type OfferFilters = {
  [F in OfferField]?: Condition<ValueOfKind<(typeof offerFields)[F]["kind"]>>;
};

/** Rental type of an offer search. */
export type OfferType = "on-demand" | "bid" | "reserved";

/** Our default filters; `"any"` drops one. A filter on the same field in `filters` wins. */
export interface OfferDefaults {
  /** Default true: only verified machines. */
  verified?: boolean | "any" | undefined;
  /** Default true: only offers that can be rented now. */
  rentable?: boolean | "any" | undefined;
  /** Default false: skip offers already rented. */
  rented?: boolean | "any" | undefined;
}

/** A search for offers, in our names and units. */
export interface OfferQuery {
  /** Field conditions. */
  filters?: OfferFilters | undefined;
  /** Sort keys, first is primary. Default `[["score", "desc"]]`. */
  order?: readonly (readonly [OfferField, "asc" | "desc"])[] | undefined;
  /** Most offers to return. Default: none sent (the server's default). */
  limit?: number | undefined;
  /** on-demand (default), bid (interruptible prices) or reserved. */
  type?: OfferType | undefined;
  /** Disk in GB the prices are computed for; pass the disk you will rent. Default 10 (our create default). */
  allocatedStorageGb?: number | undefined;
  /** Our default filters (verified=true, rentable=true, rented=false). */
  defaults?: OfferDefaults | undefined;
  /**
   * How far bounds on GPU memory (`gpuRamBytes`, `gpuTotalRamBytes`) are widened so a card of
   * the class asked for passes: `gte 24GiB` admits an RTX 4090 reporting 24564 MiB. Lower bounds
   * shrink by it, upper bounds grow by it, `eq` becomes that range; `neq`/`in`/`notin` stay
   * exact. 0 for exact bounds. Default `gpuMemoryClassTolerance` (0.07, see units.ts).
   */
  gpuMemoryTolerance?: number | undefined;
  /** Extra raw API conditions for columns not typed here, such as `{ has_avx: { eq: true } }`. Sent as given. */
  raw?: Record<string, Record<string, unknown>> | undefined;
}

/** The JSON body of `POST /api/v0/bundles/`. */
export type OfferQueryBody = Record<string, unknown>;

/** Default disk size for pricing and for creates, in GB. */
export const defaultDiskGb = 10;

const operators: readonly QueryOperator[] = ["eq", "neq", "gt", "gte", "lt", "lte", "in", "notin"];

// A minimum must never be relaxed by unit rounding, nor a maximum.
const roundingFor: Record<QueryOperator, UnitRounding> = {
  gt: "up",
  gte: "up",
  lt: "down",
  lte: "down",
  eq: "nearest",
  neq: "nearest",
  in: "nearest",
  notin: "nearest",
};

/**
 * Builds the request body of an offer search: API column names, numbers as numbers, bytes
 * converted to MB/GB, our explicit defaults, order, type, limit and allocated storage.
 * Throws InvalidInputError for unknown fields or operators and wrongly typed values.
 */
export function buildOfferQuery(query: OfferQuery = {}): OfferQueryBody {
  const body: OfferQueryBody = {};
  const defaults = withDefaults<OfferDefaults>(
    { verified: true, rentable: true, rented: false },
    query.defaults,
  );
  for (const name of ["verified", "rentable", "rented"] as const) {
    const value = defaults[name];
    if (value !== "any") body[offerFields[name].api] = { eq: value };
  }
  const tolerance = query.gpuMemoryTolerance ?? gpuMemoryClassTolerance;
  if (!(tolerance >= 0 && tolerance < 0.5)) {
    throw new InvalidInputError(`gpuMemoryTolerance must be within 0..0.5, got ${tolerance}`, {
      hint: "such as 0.07 (the default), or 0 for exact bounds",
    });
  }
  for (const [name, condition] of Object.entries(query.filters ?? {})) {
    if (condition === undefined) continue;
    const field = (offerFields as Record<string, { api: string; kind: FieldKind }>)[name];
    if (field === undefined) {
      throw new InvalidInputError(`unknown offer field "${name}"`, {
        hint: `use one of: ${Object.keys(offerFields).join(", ")}`,
      });
    }
    body[field.api] = encodeCondition(name, field.kind, condition, tolerance);
  }
  for (const [column, condition] of Object.entries(query.raw ?? {})) body[column] = condition;
  const order = query.order ?? [["score", "desc"]];
  body.order = order.map(([name, direction]) => {
    const field = (offerFields as Record<string, { api: string }>)[name];
    if (field === undefined || (direction !== "asc" && direction !== "desc")) {
      throw new InvalidInputError(`cannot order by "${name}" ${direction}`, {
        hint: 'order by a known field, "asc" or "desc"',
      });
    }
    return [field.api, direction];
  });
  body.type = query.type ?? "on-demand";
  if (!["on-demand", "bid", "reserved"].includes(body.type as string)) {
    throw new InvalidInputError(`unknown offer type "${query.type}"`, {
      hint: 'use "on-demand", "bid" or "reserved"',
    });
  }
  const storage = query.allocatedStorageGb ?? defaultDiskGb;
  if (!(Number.isFinite(storage) && storage > 0)) {
    throw new InvalidInputError(`allocatedStorageGb must be positive, got ${storage}`, {
      hint: "give the disk you will rent, in GB",
    });
  }
  body.allocated_storage = storage;
  if (query.limit !== undefined) {
    if (!Number.isInteger(query.limit) || query.limit < 1) {
      throw new InvalidInputError(`limit must be a whole number >= 1, got ${query.limit}`, {
        hint: "such as 20",
      });
    }
    body.limit = query.limit;
  }
  return body;
}

function encodeCondition(
  name: string,
  kind: FieldKind,
  condition: unknown,
  tolerance: number,
): Record<string, unknown> {
  const isOperatorObject = typeof condition === "object" && condition !== null && !Array.isArray(condition);
  const entries = isOperatorObject ? Object.entries(condition) : [["eq", condition] as const];
  const out: Record<string, unknown> = {};
  const widen = kind === "gpuMemory" ? tolerance : 0;
  for (const [op, value] of entries) {
    if (value === undefined) continue;
    if (!operators.includes(op as QueryOperator)) {
      throw new InvalidInputError(`unknown operator "${op}" on ${name}`, {
        hint: `use one of: ${operators.join(", ")}`,
      });
    }
    const rounding = roundingFor[op as QueryOperator];
    if (op === "in" || op === "notin") {
      if (!Array.isArray(value) || (op === "in" && value.length === 0)) {
        throw new InvalidInputError(`${name}.${op} needs a non-empty array`, {
          hint: `such as { ${op}: [...] }`,
        });
      }
      out[op] = value.map((v) => encodeValue(name, kind, v, rounding, 1));
    } else if (widen > 0 && op === "eq") {
      // A card class is a range: "24 GB" cards report 22.5 to 24 GiB.
      mergeBound(out, "gte", encodeValue(name, kind, value, "down", 1 - widen));
      mergeBound(out, "lte", encodeValue(name, kind, value, "up", 1 + widen));
    } else {
      // A widened lower bound rounds down and a widened upper bound up: the tolerance only admits.
      const lower = op === "gt" || op === "gte";
      const upper = op === "lt" || op === "lte";
      const scale = lower ? 1 - widen : upper ? 1 + widen : 1;
      const widenedRounding = widen > 0 && lower ? "down" : widen > 0 && upper ? "up" : rounding;
      mergeBound(out, op, encodeValue(name, kind, value, widenedRounding, scale));
    }
  }
  if (Object.keys(out).length === 0) {
    throw new InvalidInputError(`empty condition on ${name}`, {
      hint: "give a value or at least one operator",
    });
  }
  return out;
}

/** Sets a bound; where `eq` widening and an explicit bound meet, the tighter one wins. */
function mergeBound(out: Record<string, unknown>, op: string, value: unknown): void {
  const previous = out[op];
  if (typeof previous === "number" && typeof value === "number") {
    out[op] = op === "gt" || op === "gte" ? Math.max(previous, value) : Math.min(previous, value);
  } else out[op] = value;
}

function encodeValue(
  name: string,
  kind: FieldKind,
  value: unknown,
  rounding: UnitRounding,
  scale: number,
): unknown {
  const sized = kind === "memory" || kind === "gpuMemory" || kind === "disk";
  const wrong = () =>
    new InvalidInputError(`bad value ${JSON.stringify(value)} for ${name}`, {
      hint: sized
        ? 'give bytes or a size such as "256GiB"'
        : `give a ${kind === "string" ? "string" : kind === "boolean" ? "boolean" : "finite number"}`,
    });
  switch (kind) {
    case "string":
      if (typeof value !== "string") throw wrong();
      return value;
    case "boolean":
      if (typeof value !== "boolean") throw wrong();
      return value;
    case "number":
      if (typeof value !== "number" || !Number.isFinite(value)) throw wrong();
      return value;
    case "memory":
    case "gpuMemory":
    case "disk": {
      if (typeof value !== "number" && typeof value !== "string") throw wrong();
      const bytes = parseByteSize(value) * scale;
      return kind === "disk" ? bytesToVastDisk(bytes, rounding) : bytesToVastMemory(bytes, rounding);
    }
  }
}

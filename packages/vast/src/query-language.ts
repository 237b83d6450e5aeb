import { GiB, InvalidInputError, MiB } from "@cuzkit/core";
import { type OfferDefaults, type OfferFilters, offerFields, type QueryOperator } from "./offer-query.js";

// vast-cli's offer query language (`vastai search offers 'gpu_ram>=24 num_gpus=2 reliability>0.99'`),
// read into our typed query. Facts from vast-ai/vast-cli v1.5.2 (`5567983`):
// vastai/api/query.py (parse_query, offers_fields, offers_alias, offers_mult) and the examples
// in vastai/cli/commands/offers.py. Our own code; where we differ from vast-cli it is said below.

/** The offer fields vast-cli knows (query.py `offers_fields`), by API column. */
const vastCliOfferFields: ReadonlySet<string> = new Set([
  "bw_nvlink",
  "cluster_id",
  "compute_cap",
  "cpu_arch",
  "cpu_cores",
  "cpu_cores_effective",
  "cpu_ghz",
  "cpu_ram",
  "cuda_max_good",
  "datacenter",
  "direct_port_count",
  "disk_bw",
  "disk_space",
  "dlperf",
  "dlperf_per_dphtotal",
  "dph_total",
  "driver_version",
  "duration",
  "external",
  "flops_per_dphtotal",
  "geolocation",
  "gpu_arch",
  "gpu_display_active",
  "gpu_frac",
  "gpu_max_power",
  "gpu_max_temp",
  "gpu_mem_bw",
  "gpu_name",
  "gpu_ram",
  "gpu_total_ram",
  "has_avx",
  "host_id",
  "id",
  "inet_down",
  "inet_down_cost",
  "inet_up",
  "inet_up_cost",
  "machine_id",
  "min_bid",
  "mobo_name",
  "num_gpus",
  "pci_gen",
  "pcie_bw",
  "reliability",
  "rentable",
  "rented",
  "static_ip",
  "storage_cost",
  "total_flops",
  "ubuntu_version",
  "verification",
  "verified",
  "vms_enabled",
]);

/** vast-cli's short names (query.py `offers_alias`). */
const aliases: Readonly<Record<string, string>> = {
  cuda_vers: "cuda_max_good",
  display_active: "gpu_display_active",
  dlperf_usd: "dlperf_per_dphtotal",
  dph: "dph_total",
  flops_usd: "flops_per_dphtotal",
};

/** Operators as vast-cli spells them (query.py `op_names`), to the API's names. */
const operatorNames: Readonly<Record<string, QueryOperator>> = {
  ">=": "gte",
  ">": "gt",
  "<=": "lte",
  "<": "lt",
  "!=": "neq",
  "==": "eq",
  "=": "eq",
  gt: "gt",
  gte: "gte",
  lt: "lt",
  lte: "lte",
  eq: "eq",
  neq: "neq",
  noteq: "neq",
  "not eq": "neq",
  notin: "notin",
  "not in": "notin",
  nin: "notin",
  in: "in",
};

/** What a query string says, ready to merge into an OfferQuery. */
export interface ParsedOfferQuery {
  /** Conditions on typed fields, in our names and units (bytes, seconds). */
  filters: OfferFilters;
  /** Conditions on columns we do not type (`has_avx`, `driver_version`, ...), as the API takes them. */
  raw: Record<string, Record<string, unknown>>;
  /** Defaults the query turned off with `verified=any` (vast-cli's wildcard). */
  defaults: OfferDefaults;
}

const byApiName = new Map<string, { name: string; kind: string }>(
  Object.entries(offerFields).map(([name, field]) => [field.api, { name, kind: field.kind }]),
);

/**
 * Parses vast-cli's offer query language into our typed query. Syntax: `field op value ...`,
 * op one of `= == != < <= > >=` or the words `eq neq gt gte lt lte in notin nin "not in"`;
 * `in`/`notin` take `[a,b]`; `_` in a value stands for a space (`gpu_name=RTX_4090`); a value
 * may be quoted (`"RTX 4090"`); `field=any` (or `*`, `?`) drops a default filter.
 *
 * Units, as vast-cli's help states them: `gpu_ram`, `gpu_total_ram` in GB of the card class
 * (24 means a 24 GB card, matched with the class tolerance), `cpu_ram` in GB as vast-cli sends it
 * (x 1000 onto the API's MiB column, which leaves the slack a host's MemTotal needs), `disk_space`
 * in GB, `duration` in days, `driver_version` as "535.86.05". Numbers are sent as numbers
 * (vast-cli sends strings). Unlike vast-cli, which only warns, an unknown field is an error.
 * Throws InvalidInputError saying what was wrong.
 */
export function parseOfferQuery(text: string): ParsedOfferQuery {
  const result: ParsedOfferQuery = { filters: {}, raw: {}, defaults: {} };
  const source = text.trim();
  let at = 0;
  const fail = (message: string, hint = queryHint) => new InvalidInputError(`query: ${message}`, { hint });
  while (at < source.length) {
    const rest = source.slice(at);
    const field = /^[A-Za-z0-9_]+/.exec(rest)?.[0];
    if (field === undefined) throw fail(`expected a field name at "${rest.slice(0, 20)}"`);
    at += field.length;
    const { operator, length } = readOperator(source.slice(at), field, fail);
    at += length;
    const spaces = /^\s*/.exec(source.slice(at))?.[0].length ?? 0;
    at += spaces;
    const valueText = /^(\[[^\]]*\]|"[^"]*"|[^\s]+)/.exec(source.slice(at))?.[0];
    if (valueText === undefined) throw fail(`no value after "${field} ${operator}"`);
    at += valueText.length;
    at += /^\s*/.exec(source.slice(at))?.[0].length ?? 0;
    addCondition(result, field, operator, valueText, fail);
  }
  return result;
}

const queryHint =
  "write FIELD OP VALUE pairs separated by spaces, such as 'gpu_ram>=24 num_gpus=2 reliability>0.99 gpu_name=RTX_4090'; quote the whole query in the shell";

function readOperator(
  rest: string,
  field: string,
  fail: (message: string, hint?: string) => InvalidInputError,
): { operator: QueryOperator; length: number } {
  const symbolic = /^\s*([=<>!~]+)/.exec(rest);
  if (symbolic) {
    const operator = operatorNames[symbolic[1]!];
    if (operator === undefined) {
      throw fail(
        `unknown operator "${symbolic[1]}" after ${field}`,
        "use one of = == != < <= > >= or the words eq neq gt gte lt lte in notin",
      );
    }
    return { operator, length: symbolic[0].length };
  }
  const word = /^\s+(not\s?eq|not\s?in|[a-z]+)\s+/i.exec(rest);
  const spelled = word?.[1]?.toLowerCase().replace(/\s+/, " ");
  const operator = spelled === undefined ? undefined : operatorNames[spelled];
  if (operator === undefined) {
    const seen = word?.[1] ?? rest.trim().split(/\s+/)[0] ?? "";
    throw fail(
      seen === "" ? `no operator after ${field}` : `unknown operator "${seen}" after ${field}`,
      "use one of = == != < <= > >= or the words eq neq gt gte lt lte in notin",
    );
  }
  return { operator, length: word![0].length };
}

function unquote(text: string): string {
  return text.replace(/^"(.*)"$/, "$1");
}

function addCondition(
  result: ParsedOfferQuery,
  rawField: string,
  operator: QueryOperator,
  valueText: string,
  fail: (message: string, hint?: string) => InvalidInputError,
): void {
  const column = aliases[rawField] ?? rawField;
  const typed = byApiName.get(column);
  if (typed === undefined && !vastCliOfferFields.has(column)) {
    throw fail(
      `unknown field "${rawField}"`,
      `use a vast-cli offer field, such as ${["gpu_name", "num_gpus", "gpu_ram", "cpu_ram", "dph", "reliability", "geolocation", "cuda_vers", "inet_down", "verified"].join(", ")}`,
    );
  }
  const bare = unquote(valueText);
  if (["any", "*", "?"].includes(bare)) {
    if (operator !== "eq") throw fail(`the wildcard "${bare}" only works with =, on ${rawField}`);
    if (column === "verified" || column === "rentable" || column === "rented")
      result.defaults[column] = "any";
    if (typed !== undefined) delete (result.filters as Record<string, unknown>)[typed.name];
    delete result.raw[column];
    return;
  }
  const isList = operator === "in" || operator === "notin";
  const items = isList
    ? valueText
        .replace(/^\[|\]$/g, "")
        .split(",")
        .map((item) => unquote(item.trim()))
        .filter((item) => item !== "")
    : [bare];
  if (items.length === 0) throw fail(`${rawField} ${operator} needs at least one value, such as [TW,SE]`);
  const convert = (item: string) =>
    convertValue(column, typed?.kind, item.replace(/_/g, " "), rawField, fail);
  const value = isList ? items.map(convert) : convert(items[0]!);
  if (typed !== undefined) {
    const filters = result.filters as Record<string, Record<string, unknown>>;
    filters[typed.name] = { ...filters[typed.name], [operator]: value };
  } else {
    result.raw[column] = { ...result.raw[column], [operator]: value };
  }
}

function convertValue(
  column: string,
  kind: string | undefined,
  text: string,
  rawField: string,
  fail: (message: string, hint?: string) => InvalidInputError,
): unknown {
  const number = () => {
    const value = Number(text);
    if (text.trim() === "" || !Number.isFinite(value))
      throw fail(`${rawField} needs a number, got "${text}"`, `such as ${rawField}>=2`);
    return value;
  };
  const bool = () => {
    if (/^true$/i.test(text)) return true;
    if (/^false$/i.test(text)) return false;
    throw fail(`${rawField} needs true or false, got "${text}"`, `such as ${rawField}=true`);
  };
  switch (kind) {
    case "gpuMemory":
      return Math.round(number() * GiB); // the card class: 24 = a 24 GB card
    case "memory":
      return Math.round(number() * 1000 * MiB); // vast-cli's x1000 onto the MiB column
    case "disk":
      return Math.round(number() * 1e9);
    case "number":
      return column === "duration" ? number() * 86_400 : number(); // days, as vast-cli reads it
    case "boolean":
      return bool();
    case "string":
      return text;
  }
  // An untyped column: as vast-cli reads it, but numbers as numbers.
  if (column === "driver_version") {
    const parts = /^(\d+)\.(\d+)\.(\d+)$/.exec(text);
    if (!parts) throw fail(`driver_version needs X.Y.Z, got "${text}"`, "such as driver_version>=535.86.05");
    return Number(parts[1]) * 1e6 + Number(parts[2]) * 1e3 + Number(parts[3]);
  }
  if (/^(true|false)$/i.test(text)) return /^true$/i.test(text);
  if (text === "None" || text === "null") return null;
  if (text.trim() !== "" && Number.isFinite(Number(text))) return Number(text);
  return text;
}

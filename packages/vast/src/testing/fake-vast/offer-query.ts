import { isRecord } from "./replies.js";

// The fake's reading of Vast.ai's search query: per-field conditions (eq, neq, gt, gte, lt,
// lte, in, notin), an order and a limit; a column a record lacks is ignored.

/** Offer columns the server computes: `verified` and `datacenter`. */
function offerView(offer: Record<string, unknown>): Record<string, unknown> {
  return {
    ...offer,
    verified: offer.verification === "verified",
    datacenter: offer.hosting_type === 1,
    reliability: offer.reliability ?? offer.reliability2,
  };
}

function compare(value: unknown, op: string, operand: unknown): boolean {
  switch (op) {
    case "eq":
      return value === operand;
    case "neq":
      return value !== operand;
    case "gt":
      return (value as number) > (operand as number);
    case "gte":
      return (value as number) >= (operand as number);
    case "lt":
      return (value as number) < (operand as number);
    case "lte":
      return (value as number) <= (operand as number);
    case "in":
      return Array.isArray(operand) && operand.includes(value);
    case "notin":
      return Array.isArray(operand) && !operand.includes(value);
    default:
      return false;
  }
}

/** True when `record` meets every condition of `query` (fields in `reserved` are not conditions). */
export function matchesAll(
  record: Record<string, unknown>,
  query: Record<string, unknown>,
  reserved: string[],
): boolean {
  for (const [field, condition] of Object.entries(query)) {
    if (reserved.includes(field) || !isRecord(condition)) continue;
    if (!(field in record)) continue; // a column this record lacks: the fake ignores it
    const value = record[field];
    for (const [op, operand] of Object.entries(condition)) {
      if (!compare(value, op, operand)) return false;
    }
  }
  return true;
}

/** The offers a search body selects, in its order (default score, descending), up to its limit. */
export function searchOffers(offers: Record<string, unknown>[], query: unknown): Record<string, unknown>[] {
  const q = isRecord(query) ? query : {};
  let result = offers.filter((offer) =>
    matchesAll(offerView(offer), q, ["order", "type", "limit", "allocated_storage", "disable_bundling"]),
  );
  const order = Array.isArray(q.order) ? (q.order as [string, string][]) : [["score", "desc"]];
  result = [...result].sort((a, b) => {
    for (const [field, dir] of order) {
      const x = a[String(field)] as number;
      const y = b[String(field)] as number;
      if (x !== y) return (x < y ? -1 : 1) * (dir === "desc" ? -1 : 1);
    }
    return 0;
  });
  if (typeof q.limit === "number") result = result.slice(0, q.limit);
  return result;
}

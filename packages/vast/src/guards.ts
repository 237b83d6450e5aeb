// Small shape guards for JSON the API sends. Each returns undefined rather than throwing, so
// the caller decides whether a missing field is fatal (MalformedResponse) or optional.

/** A JSON object (not an array, not null). */
export type JsonObject = Record<string, unknown>;

/** True for a plain JSON object. */
export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A finite number, or a numeric string the API sometimes sends; otherwise undefined. */
export function numberField(record: JsonObject, key: string): number | undefined {
  const value = record[key];
  if (typeof value === "number" && Number.isFinite(value)) return value;
  if (typeof value === "string" && value.trim() !== "" && Number.isFinite(Number(value)))
    return Number(value);
  return undefined;
}

/** A string field, otherwise undefined. */
export function stringField(record: JsonObject, key: string): string | undefined {
  const value = record[key];
  return typeof value === "string" ? value : undefined;
}

/** A boolean field (also 0/1 as some columns are), otherwise undefined. */
export function booleanField(record: JsonObject, key: string): boolean | undefined {
  const value = record[key];
  if (typeof value === "boolean") return value;
  if (value === 0 || value === 1) return value === 1;
  return undefined;
}

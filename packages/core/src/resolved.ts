/**
 * An options type with every field present and defined: what `resolve...Options` returns
 * after filling in the defaults. Unlike `Required<T>`, it also drops the `| undefined` that
 * optional option fields carry (`x?: T | undefined`, so callers may pass `x: undefined`).
 */
export type Resolved<T> = { [K in keyof T]-?: Exclude<T[K], undefined> };

/**
 * The defaults with every field of `overrides` that is not undefined laid over them: an
 * option passed as `undefined` keeps its default (a plain spread would erase it).
 */
export function withDefaults<T extends object>(defaults: Resolved<T>, overrides: T | undefined): Resolved<T> {
  const merged: Record<string, unknown> = { ...defaults };
  for (const [key, value] of Object.entries(overrides ?? {})) if (value !== undefined) merged[key] = value;
  return merged as Resolved<T>;
}

/** Codes core's own errors use; the packages add theirs (each a closed union). */
export type CoreErrorCode = "INTERNAL" | "INVALID_INPUT" | "C1_INVALID" | "ABORTED" | "DEADLINE_EXCEEDED";

/**
 * Options every cuzkit error takes, the second argument of every constructor:
 * `new XError(message, { code?, hint?, retryable?, cause?, ...context })`.
 */
export interface CuzkitErrorOptions<Code extends string = string> {
  /** A stable code; each subclass fixes its own, so only the base class needs it. Default: "INTERNAL". */
  code?: Code | undefined;
  /** What to do about it, in the library's terms (the CLI maps it to its flags). Default: the class's own. */
  hint?: string | undefined;
  /** Whether repeating the same operation may succeed. Default: the class's own (false for the base). */
  retryable?: boolean | undefined;
  /** The underlying error, kept for debugging. */
  cause?: unknown | undefined;
}

/**
 * Marks every cuzkit error, so a second installed copy of @cuzkit/core (two versions in one
 * tree) still recognises it: `instanceof` checks the brand, not only the prototype chain.
 */
const brand = Symbol.for("cuzkit.error");

/** The class names on a branded error's prototype chain, from its own class up to CuzkitError. */
function brandedClassNames(value: unknown): string[] | undefined {
  if (typeof value !== "object" || value === null || (value as { [brand]?: unknown })[brand] !== true)
    return undefined;
  const names: string[] = [];
  for (
    let proto = Object.getPrototypeOf(value);
    proto && proto !== Error.prototype;
    proto = Object.getPrototypeOf(proto)
  )
    if (Object.hasOwn(proto, "constructor")) names.push((proto.constructor as { name: string }).name);
  return names;
}

/**
 * Base class of every error cuzkit throws. `code` is stable across versions and safe to
 * branch on; `message` says what went wrong; `hint` says what to do about it.
 * `instanceof CuzkitError` (and each subclass, by its class name) holds across two installed
 * copies of the packages.
 */
export class CuzkitError<Code extends string = string> extends Error {
  /** A stable, machine-readable identifier such as `DAEMON_RESTARTED`. */
  readonly code: Code;
  /** Whether repeating the same operation may succeed. */
  readonly retryable: boolean;
  /** What to do about it. */
  readonly hint: string;

  constructor(message: string, options: CuzkitErrorOptions<Code> = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = options.code ?? ("INTERNAL" as Code);
    this.retryable = options.retryable ?? false;
    this.hint = options.hint ?? "";
  }

  /** Same realm and copy: the prototype chain; otherwise a branded error whose chain has this class's name. */
  // `this` is the class instanceof was asked about (a subclass too), not CuzkitError itself.
  static override [Symbol.hasInstance](value: unknown): boolean {
    // biome-ignore lint/complexity/noThisInStatic: the subclass being checked
    if (Function.prototype[Symbol.hasInstance].call(this, value)) return true;
    // biome-ignore lint/complexity/noThisInStatic: the subclass being checked
    return brandedClassNames(value)?.includes(this.name) ?? false;
  }

  /** True for any CuzkitError, also one thrown by a second copy of this package. */
  static is(value: unknown): value is CuzkitError {
    return value instanceof CuzkitError;
  }
}
Object.defineProperty(CuzkitError.prototype, brand, { value: true });

/** Bad input from a caller or a user: a flag, a size string, a config file, a request. */
export class InvalidInputError extends CuzkitError<"INVALID_INPUT"> {
  constructor(message: string, options: Omit<CuzkitErrorOptions<"INVALID_INPUT">, "retryable"> = {}) {
    super(message, { ...options, code: "INVALID_INPUT", retryable: false });
  }
}

/** Why a C1 input was refused: it is not a readable wrapper, or it is one for something the daemon does not prove. */
export type C1InputProblem = "malformed" | "wrong-kind";

/** Options of C1InputError. */
export interface C1InputErrorOptions extends Omit<CuzkitErrorOptions<"C1_INVALID">, "code" | "retryable"> {
  /** Why it was refused. Default "malformed". */
  reason?: C1InputProblem | undefined;
}

/** A PoRep C1 input (the wrapper Curio writes) that cannot be read, or is for a sector the daemon does not prove. */
export class C1InputError extends CuzkitError<"C1_INVALID"> {
  /** Why it was refused. */
  readonly reason: C1InputProblem;

  constructor(message: string, options: C1InputErrorOptions = {}) {
    const { reason, hint, ...rest } = options;
    super(message, {
      ...rest,
      hint:
        hint ??
        'pass the C1 output wrapper Curio writes, {"SectorNum", "Phase1Out" (base64 of the C1 JSON), "SectorSize"}, ' +
          "about 51 MB for a 32 GiB sector; SnapDeals and PoSt inputs are vanilla proofs, not C1",
      code: "C1_INVALID",
      retryable: false,
    });
    this.reason = reason ?? "malformed";
  }
}

/** Wraps anything thrown into a CuzkitError (code INTERNAL unless given), keeping the original as `cause`. */
export function toCuzkitError(value: unknown, code = "INTERNAL", hint = ""): CuzkitError {
  if (CuzkitError.is(value)) return value;
  const message = value instanceof Error ? value.message : String(value);
  return new CuzkitError(message, { code, hint, cause: value });
}

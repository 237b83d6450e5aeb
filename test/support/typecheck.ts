import { createHash } from "node:crypto";
import { dirname } from "node:path";
import ts from "typescript";

/** What to type-check: root files and compiler options as a tsconfig.json would spell them. */
export interface TypecheckRun {
  /** The root files (absolute paths). */
  files: string[];
  /** compilerOptions as JSON (`{ module: "node16" }`); noEmit is always on. */
  compilerOptions: Record<string, unknown>;
  /**
   * Only report semantic errors in these files (default: every file but TypeScript's own lib
   * files, as `tsc` with skipDefaultLibCheck). Syntax, option and global errors are always reported.
   */
  semanticFiles?: string[] | undefined;
}

/**
 * Type-checks like `tsc -p` with a tsconfig of `files` and `compilerOptions`, in this process
 * (one TypeScript load for every run instead of a tsc process each), and returns the errors in
 * tsc's format (`consumer.ts(3,1): error TS1479: ...`), or "" when there are none.
 */
export function typecheck(run: TypecheckRun): string {
  const base = dirname(run.files[0] ?? ".");
  const converted = ts.convertCompilerOptionsFromJson(run.compilerOptions, base);
  if (converted.errors.length > 0) return format(converted.errors, base);
  return check(run.files, converted.options, [], run.semanticFiles, base);
}

/**
 * Type-checks the project of a tsconfig.json (its files, extends and options) like `tsc -p`, in
 * this process, reporting semantic errors only in `semanticFiles` (default: every file but
 * TypeScript's lib files). Returns the errors in tsc's format, or "" when there are none.
 */
export function typecheckProject(tsconfig: string, semanticFiles?: string[]): string {
  const base = dirname(tsconfig);
  let configErrors: ts.Diagnostic[] = [];
  const parsed = ts.getParsedCommandLineOfConfigFile(tsconfig, undefined, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
      configErrors = [diagnostic];
    },
  });
  if (parsed === undefined) return format(configErrors, base);
  return check(parsed.fileNames, parsed.options, parsed.errors, semanticFiles, base);
}

function check(
  rootNames: string[],
  compilerOptions: ts.CompilerOptions,
  configErrors: readonly ts.Diagnostic[],
  semanticFiles: string[] | undefined,
  base: string,
): string {
  const options: ts.CompilerOptions = { ...compilerOptions, noEmit: true };
  const host = cachingHost(options);
  const program = ts.createProgram({ rootNames, options, host, configFileParsingDiagnostics: configErrors });
  const only = semanticFiles === undefined ? undefined : new Set(semanticFiles);
  const diagnostics: ts.Diagnostic[] = [
    ...program.getConfigFileParsingDiagnostics(),
    ...program.getOptionsDiagnostics(),
    ...program.getGlobalDiagnostics(),
    ...program.getSyntacticDiagnostics(),
  ];
  for (const file of program.getSourceFiles()) {
    if (only !== undefined ? !only.has(file.fileName) : program.isSourceFileDefaultLibrary(file)) continue;
    diagnostics.push(...program.getSemanticDiagnostics(file));
  }
  // Checking files can add global errors (a missing global type): read them again after.
  diagnostics.push(...program.getGlobalDiagnostics());
  return format(ts.sortAndDeduplicateDiagnostics(diagnostics), base);
}

// Parsed files shared by the programs of this process (lib.d.ts, @types/node and the packages'
// declarations are the same files for every module setting), through TypeScript's document
// registry (what its language service shares them with): it keys each file on the options that
// change how a file is parsed and bound, and on its version, here its text's hash.
const registry = ts.createDocumentRegistry();

function cachingHost(options: ts.CompilerOptions): ts.CompilerHost {
  const host = ts.createCompilerHost(options, true);
  host.getSourceFile = (fileName, languageVersionOrOptions, onError) => {
    const text = host.readFile(fileName);
    if (text === undefined) {
      onError?.(`Cannot read file '${fileName}'.`);
      return undefined;
    }
    const version = createHash("sha256").update(text).digest("hex");
    return registry.acquireDocument(
      fileName,
      options,
      ts.ScriptSnapshot.fromString(text),
      version,
      undefined,
      languageVersionOrOptions,
    );
  };
  return host;
}

function format(diagnostics: readonly ts.Diagnostic[], base: string): string {
  return ts.formatDiagnostics(diagnostics, {
    getCanonicalFileName: (fileName) => fileName,
    getCurrentDirectory: () => base,
    getNewLine: () => "\n",
  });
}

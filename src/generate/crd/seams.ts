import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { OpGenError } from '../../errors.ts';
import type { JSONSchemaProps } from '../../api-types/json-schema.ts';

/**
 * Seams to the Kubernetes built-in schemas (builtin-schemas.ts) and the CEL checker (cel-check.ts),
 * built on another branch. Loaded on first use only, so runs that need neither never pay for them;
 * when a module is not there yet, using it is a clear error.
 */
export interface BuiltinSchemas {
  builtinSchemaFor(typeName: string): JSONSchemaProps | undefined;
}

export interface CelRuleProblem {
  readonly message: string;
  /** 1-based column in the rule where the problem is, when the CEL library says. */
  readonly column?: number;
}

export interface CelChecker {
  /** Problems with `rule` where `self` has `selfSchema`; empty when the rule is fine. */
  checkCelRule(
    rule: string,
    selfSchema: JSONSchemaProps,
  ): readonly CelRuleProblem[] | Promise<readonly CelRuleProblem[]>;
}

const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';

function moduleUrl(name: string): URL {
  return new URL(`./${name}${ext}`, import.meta.url);
}

/** Whether this build has the CEL checker / the built-in schemas (they come from another branch). */
export function celCheckerAvailable(): boolean {
  return existsSync(fileURLToPath(moduleUrl('cel-check')));
}

export function builtinSchemasAvailable(): boolean {
  return existsSync(fileURLToPath(moduleUrl('builtin-schemas')));
}

async function loadOptional<T>(name: string, what: string): Promise<T> {
  const url = moduleUrl(name);
  if (!existsSync(fileURLToPath(url))) {
    throw new OpGenError(`${what} is not available yet in this op-gen build (${name}${ext} is missing).`);
  }
  return (await import(url.href)) as T;
}

let builtins: Promise<BuiltinSchemas> | undefined;
let cel: Promise<CelChecker> | undefined;

export function loadBuiltinSchemas(): Promise<BuiltinSchemas> {
  builtins ??= loadOptional<BuiltinSchemas>('builtin-schemas', 'Kubernetes built-in types as field types');
  return builtins;
}

export function loadCelChecker(): Promise<CelChecker> {
  cel ??= loadOptional<CelChecker>('cel-check', 'CEL rule checking');
  return cel;
}

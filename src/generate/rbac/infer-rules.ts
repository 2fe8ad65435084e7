import type { ts as TS } from 'ts-morph';
import { ts } from '../../source/ts.ts';
import { OpGenError } from '../../errors.ts';
import type { RbacRule, RuleOrigin } from './rule.ts';
import { NotStaticError, type StaticEvaluator, type StaticValue } from './static-value.ts';
import { readDependents } from './infer-dependents.ts';

type BuilderMethod = 'for' | 'owns' | 'watches';
const BUILDER_METHODS: readonly string[] = ['for', 'owns', 'watches'];

/**
 * One `.for/.owns/.watches(kind)` call of a controller builder chain, with the kind read statically;
 * or one dependent of `.dependents([...])` (`dependent`: written; `read-only-dependent`), or the
 * parent's finalizer when a dependent is cleaned up in order (`ordered-cleanup`, on the `.for` kind).
 */
export interface BuilderUse {
  readonly method: BuilderMethod | 'dependent' | 'read-only-dependent' | 'ordered-cleanup';
  readonly group: string;
  readonly plural: string;
  readonly kind: string;
  readonly origin: RuleOrigin;
}

/** Whether `expr` is (or is a const bound to) a chain that starts with `.controller(...)`. */
function isControllerChain(expr: TS.Expression, checker: TS.TypeChecker, depth = 0): boolean {
  if (depth > 16) return false;
  let current: TS.Expression = expr;
  for (;;) {
    if (ts.isParenthesizedExpression(current) || ts.isAwaitExpression(current)) {
      current = current.expression;
      continue;
    }
    if (ts.isCallExpression(current) && ts.isPropertyAccessExpression(current.expression)) {
      if (current.expression.name.text === 'controller') return true;
      current = current.expression.expression;
      continue;
    }
    if (ts.isIdentifier(current)) {
      const symbol = checker.getSymbolAtLocation(current);
      const decl = symbol?.valueDeclaration;
      if (decl && ts.isVariableDeclaration(decl) && decl.initializer) {
        return isControllerChain(decl.initializer, checker, depth + 1);
      }
    }
    return false;
  }
}

function origin(sourceFile: TS.SourceFile, file: string, node: TS.Node, source: string): RuleOrigin {
  const line = sourceFile.getLineAndCharacterOfPosition(node.getStart(sourceFile)).line + 1;
  return { file, line, source };
}

function stringField(value: StaticValue, field: string): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const v = (value as Record<string, StaticValue>)[field];
  return typeof v === 'string' ? v : undefined;
}

/** Finds the builder calls of every controller in a file. */
export function findBuilderUses(
  sourceFile: TS.SourceFile,
  file: string,
  evaluator: StaticEvaluator,
): BuilderUse[] {
  const uses: BuilderUse[] = [];
  const visit = (node: TS.Node): void => {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      const method = node.expression.name.text;
      const receiver = node.expression.expression;
      if (BUILDER_METHODS.includes(method) && isControllerChain(receiver, evaluator.checker)) {
        uses.push(readUse(sourceFile, file, node, method as BuilderMethod, evaluator));
      } else if (method === 'dependents' && isControllerChain(receiver, evaluator.checker)) {
        uses.push(...dependentUses(sourceFile, file, node, evaluator));
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sourceFile);
  return uses;
}

function readUse(
  sourceFile: TS.SourceFile,
  file: string,
  call: TS.CallExpression,
  method: BuilderMethod,
  evaluator: StaticEvaluator,
): BuilderUse {
  const arg = call.arguments[0];
  const argText = arg ? arg.getText(sourceFile) : '';
  const where = origin(sourceFile, file, methodName(call), `.${method}(${argText})`);
  const help =
    'Pass a kind declared as `defineKind<T>({ group, version, kind, plural, namespaced })` with literal values ' +
    '(or `builtinKinds.X` from op-gen/runtime), or declare the permissions with @rbac markers and run with --no-infer.';
  if (!arg) throw new OpGenError(`${where.file}:${where.line}: .${method}() needs a kind. ${help}`);
  let value: StaticValue;
  try {
    value = evaluator.evaluate(arg);
  } catch (err) {
    if (err instanceof NotStaticError) {
      const errFile = err.node.getSourceFile();
      const at = origin(errFile, file, err.node, '');
      const atText = errFile === sourceFile ? '' : ` (at ${evaluator.display(errFile.fileName)}:${at.line})`;
      throw new OpGenError(
        `${where.file}:${where.line}: cannot read the kind passed to .${method}(${argText}): ${err.message}${atText}. ${help}`,
      );
    }
    throw err;
  }
  const group = stringField(value, 'group');
  const plural = stringField(value, 'plural');
  const kind = stringField(value, 'kind') ?? argText;
  if (group === undefined || plural === undefined) {
    throw new OpGenError(
      `${where.file}:${where.line}: the kind passed to .${method}(${argText}) has no literal \`group\` and \`plural\`. ${help}`,
    );
  }
  return { method, group, plural, kind, origin: where };
}

/** The uses of one `.dependents([...])` call: each dependent, and the parent's finalizer if needed. */
function dependentUses(
  sourceFile: TS.SourceFile,
  file: string,
  call: TS.CallExpression,
  evaluator: StaticEvaluator,
): BuilderUse[] {
  const read = readDependents(call, file, evaluator);
  const uses: BuilderUse[] = read.dependents.map((d) => ({
    method: d.access === 'managed' ? 'dependent' : 'read-only-dependent',
    group: d.group,
    plural: d.plural,
    kind: d.kind,
    origin: d.origin,
  }));
  if (read.ordered) {
    const forCall = forCallOf(call, evaluator.checker);
    const where = origin(sourceFile, file, methodName(call), '.dependents([...])');
    if (!forCall) {
      throw new OpGenError(
        `${where.file}:${where.line}: a dependent is cleaned up in order (${read.ordered.file}:${read.ordered.line}), ` +
          'so the parent needs `update` on its own kind (the finalizer), but the chain has no `.for(kind)` to read it from. ' +
          'Declare it with an @rbac marker (verbs=update on the parent kind).',
      );
    }
    const parent = readUse(forCall.getSourceFile(), file, forCall, 'for', evaluator);
    uses.push({ ...parent, method: 'ordered-cleanup', origin: { ...read.ordered, source: where.source } });
  }
  return uses;
}

/** The `.for(kind)` call of the controller chain a builder call is made on. */
function forCallOf(
  call: TS.CallExpression,
  checker: TS.TypeChecker,
  depth = 0,
): TS.CallExpression | undefined {
  let current: TS.Expression = call;
  while (depth <= 16) {
    if (ts.isParenthesizedExpression(current) || ts.isAwaitExpression(current)) {
      current = current.expression;
    } else if (ts.isCallExpression(current) && ts.isPropertyAccessExpression(current.expression)) {
      if (current !== call && current.expression.name.text === 'for') return current;
      if (current.expression.name.text === 'controller') return undefined;
      current = current.expression.expression;
    } else if (ts.isIdentifier(current)) {
      const decl = checker.getSymbolAtLocation(current)?.valueDeclaration;
      if (!decl || !ts.isVariableDeclaration(decl) || !decl.initializer) return undefined;
      current = decl.initializer;
      depth += 1;
    } else {
      return undefined;
    }
  }
  return undefined;
}

function methodName(call: TS.CallExpression): TS.Node {
  return ts.isPropertyAccessExpression(call.expression) ? call.expression.name : call.expression;
}

const READ: readonly string[] = ['get', 'list', 'watch'];
/**
 * A written dependent: read through the cache, server-side applied (a PATCH; the API server also
 * authorizes `create` when the apply creates the object) and deleted (pruning a set, `reconcileWhen`
 * turning false, ordered cleanup).
 */
const WRITE_DEPENDENT: readonly string[] = [...READ, 'create', 'patch', 'delete'];

/** The permissions a controller needs for what its builder chain declares. */
export function rulesForUses(uses: readonly BuilderUse[]): RbacRule[] {
  const rules: RbacRule[] = [];
  const rule = (
    groups: string[],
    resources: string[],
    verbs: readonly string[],
    from: RuleOrigin,
  ): RbacRule => ({
    groups,
    resources,
    resourceNames: [],
    urls: [],
    verbs: [...verbs],
    origin: from,
  });
  for (const use of uses) {
    if (use.method === 'ordered-cleanup') {
      // the workflow adds and removes its finalizer with an update of the parent
      rules.push(rule([use.group], [use.plural], ['update'], use.origin));
      continue;
    }
    const verbs = use.method === 'dependent' ? WRITE_DEPENDENT : READ;
    rules.push(rule([use.group], [use.plural], verbs, use.origin));
    if (use.method === 'for') {
      rules.push(rule([use.group], [`${use.plural}/status`], ['get', 'update', 'patch'], use.origin));
      rules.push(rule([use.group], [`${use.plural}/finalizers`], ['update'], use.origin));
      // the controller's event recorder
      rules.push(rule([''], ['events'], ['create', 'patch'], use.origin));
    }
  }
  return rules;
}

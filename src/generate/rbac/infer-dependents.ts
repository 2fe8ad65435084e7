import type { ts as TS } from 'ts-morph';
import { ts } from '../../source/ts.ts';
import { ProblemsError, type Problem } from '../../shared/problems.ts';
import type { RuleOrigin } from './rule.ts';
import { NotStaticError, type StaticEvaluator, type StaticValue } from './static-value.ts';

/** What a `.dependents([...])` list needs, per dependent, read without running the code. */
export interface DependentUse {
  /** `managed`: written by the runtime (apply, prune, delete); `read-only`: only read. */
  readonly access: 'managed' | 'read-only';
  readonly group: string;
  readonly plural: string;
  readonly kind: string;
  readonly origin: RuleOrigin;
}

export interface DependentsUses {
  readonly dependents: readonly DependentUse[];
  /** Where a dependent needs ordered cleanup (the parent carries a finalizer), if any does. */
  readonly ordered?: RuleOrigin;
}

const WRITTEN = new Set(['dependent', 'dependents']);
const HELP_MANAGED = 'get;list;watch;create;patch;delete';

function lineOf(node: TS.Node): number {
  const sf = node.getSourceFile();
  return sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
}

/** The const initializer an identifier stands for (across imports), if it has one. */
function constInitializer(node: TS.Identifier, checker: TS.TypeChecker): TS.Expression | undefined {
  let symbol = checker.getSymbolAtLocation(node);
  if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
  const decl = symbol?.valueDeclaration ?? symbol?.declarations?.[0];
  if (!decl || !ts.isVariableDeclaration(decl) || !decl.initializer) return undefined;
  const list = decl.parent;
  return ts.isVariableDeclarationList(list) && list.flags & ts.NodeFlags.Const ? decl.initializer : undefined;
}

/** The name a called function is imported (or declared) as: `dependent` for `import { dependent as d }`. */
function calleeName(call: TS.CallExpression, checker: TS.TypeChecker): string | undefined {
  const callee = call.expression;
  if (ts.isPropertyAccessExpression(callee)) return callee.name.text;
  if (!ts.isIdentifier(callee)) return undefined;
  const symbol = checker.getSymbolAtLocation(callee);
  const decl = symbol?.declarations?.[0];
  if (decl && ts.isImportSpecifier(decl)) return (decl.propertyName ?? decl.name).text;
  return callee.text;
}

function strip(node: TS.Expression): TS.Expression {
  let current = node;
  while (
    ts.isParenthesizedExpression(current) ||
    ts.isAsExpression(current) ||
    ts.isSatisfiesExpression(current) ||
    ts.isNonNullExpression(current)
  ) {
    current = current.expression;
  }
  return current;
}

/**
 * Reads the dependents passed to `.dependents(list)`: each element is (a const holding, possibly
 * through `.dependsOn(...)`) a call to `dependent`, `dependents`, `readOnlyDependent` or
 * `externalDependent` from op-gen/runtime. Every element that cannot be read is a problem with its
 * place and what to declare by hand; all of them are thrown together.
 */
export function readDependents(
  call: TS.CallExpression,
  file: string,
  evaluator: StaticEvaluator,
): DependentsUses {
  const checker = evaluator.checker;
  const sourceFile = call.getSourceFile();
  const callLine = lineOf(call.expression);
  const problems: Problem[] = [];
  const uses: DependentUse[] = [];
  let ordered: RuleOrigin | undefined;
  const at = (node: TS.Node): string =>
    node.getSourceFile() === sourceFile
      ? `${file}:${lineOf(node)}`
      : `${file}:${callLine} (at ${evaluator.display(node.getSourceFile().fileName)}:${lineOf(node)})`;
  const report = (node: TS.Node, what: string): void => {
    problems.push({
      text:
        `${at(node)}: ${what}, so generate rbac cannot tell which permissions it needs. Declare a dependent ` +
        `as a const \`dependent(kind, {...})\` (or dependents/readOnlyDependent/externalDependent from ` +
        `op-gen/runtime) with a kind read statically, or declare its permissions with an @rbac marker ` +
        `(a written dependent: verbs=${HELP_MANAGED} on its kind; a read-only one: get;list;watch) and ` +
        `run with --no-infer.`,
    });
  };

  const element = (node: TS.Expression, depth: number): void => {
    const expr = strip(node);
    if (depth > 16) return report(expr, 'a dependent that refers to itself');
    if (ts.isIdentifier(expr)) {
      const init = constInitializer(expr, checker);
      if (!init)
        return report(expr, `\`${expr.text}\` is not a const with an initializer in the scanned sources`);
      return element(init, depth + 1);
    }
    if (ts.isCallExpression(expr)) {
      const callee = expr.expression;
      if (ts.isPropertyAccessExpression(callee) && callee.name.text === 'dependsOn') {
        return element(callee.expression, depth + 1);
      }
      const name = calleeName(expr, checker);
      if (name === 'externalDependent') {
        if (hasOption(expr.arguments[0], 'delete', checker)) ordered ??= originOf(expr);
        return;
      }
      if (name !== undefined && (WRITTEN.has(name) || name === 'readOnlyDependent')) {
        const kindArg = expr.arguments[0];
        if (!kindArg) return report(expr, `${name}() without a kind`);
        let value: StaticValue;
        try {
          value = evaluator.evaluate(kindArg);
        } catch (err) {
          if (err instanceof NotStaticError) {
            return report(
              err.node,
              `cannot read the kind passed to ${name}(${kindArg.getText()}): ${err.message}`,
            );
          }
          throw err;
        }
        const group = field(value, 'group');
        const plural = field(value, 'plural');
        if (group === undefined || plural === undefined) {
          return report(
            kindArg,
            `the kind passed to ${name}(${kindArg.getText()}) has no literal \`group\` and \`plural\``,
          );
        }
        const origin = originOf(expr);
        uses.push({
          access: name === 'readOnlyDependent' ? 'read-only' : 'managed',
          group,
          plural,
          kind: field(value, 'kind') ?? kindArg.getText(),
          origin,
        });
        if (WRITTEN.has(name)) {
          const cleanup = optionValue(expr.arguments[1], 'cleanup', evaluator);
          if (cleanup === 'ordered') ordered ??= origin;
          else if (cleanup !== 'garbage-collection' && cleanup !== undefined) {
            report(
              expr.arguments[1] ?? expr,
              "its `cleanup` option is not a literal 'ordered' or 'garbage-collection'",
            );
          }
        }
        return;
      }
    }
    report(expr, `\`${expr.getText()}\` is not a dependent declaration read statically`);
  };

  const originOf = (node: TS.CallExpression): RuleOrigin => {
    const same = node.getSourceFile() === sourceFile;
    return {
      file: same ? file : evaluator.display(node.getSourceFile().fileName),
      line: lineOf(node),
      source: `.dependents(${node.expression.getText()})`,
    };
  };

  const list = (node: TS.Expression | undefined, depth: number): void => {
    if (!node) return report(call, '.dependents() without a list');
    const expr = strip(node);
    if (ts.isIdentifier(expr) && depth < 16) {
      const init = constInitializer(expr, checker);
      if (init) return list(init, depth + 1);
    }
    if (!ts.isArrayLiteralExpression(expr))
      return report(expr, 'the list passed to .dependents() is not an array literal');
    for (const e of expr.elements) {
      if (ts.isSpreadElement(e)) list(e.expression, depth + 1);
      else element(e, 0);
    }
  };
  list(call.arguments[0], 0);
  if (problems.length > 0) throw new ProblemsError(problems);
  return { dependents: uses, ...(ordered ? { ordered } : {}) };
}

function field(value: StaticValue, name: string): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const v = (value as Record<string, StaticValue>)[name];
  return typeof v === 'string' ? v : undefined;
}

/** The options object literal of a declaration (following a const). */
function optionsObject(
  node: TS.Expression | undefined,
  checker: TS.TypeChecker,
): TS.ObjectLiteralExpression | undefined {
  if (!node) return undefined;
  const expr = strip(node);
  if (ts.isObjectLiteralExpression(expr)) return expr;
  if (ts.isIdentifier(expr)) return optionsObject(constInitializer(expr, checker), checker);
  return undefined;
}

function propertyNamed(
  obj: TS.ObjectLiteralExpression,
  name: string,
): TS.ObjectLiteralElementLike | undefined {
  return obj.properties.find(
    (p) =>
      p.name !== undefined && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name)) && p.name.text === name,
  );
}

/** Whether an options object has `name` (a method, a property, a shorthand); unreadable options count as having it. */
function hasOption(node: TS.Expression | undefined, name: string, checker: TS.TypeChecker): boolean {
  const obj = optionsObject(node, checker);
  if (!obj) return node !== undefined;
  if (obj.properties.some((p) => ts.isSpreadAssignment(p))) return true;
  return propertyNamed(obj, name) !== undefined;
}

/**
 * The literal value of one option (`cleanup: 'ordered'`), undefined when absent; a value that cannot
 * be read (or options that are not an object literal) is `null`, which the caller reports.
 */
function optionValue(
  node: TS.Expression | undefined,
  name: string,
  evaluator: StaticEvaluator,
): StaticValue | undefined {
  if (!node) return undefined;
  const obj = optionsObject(node, evaluator.checker);
  if (!obj || obj.properties.some((p) => ts.isSpreadAssignment(p))) return null;
  const prop = propertyNamed(obj, name);
  if (!prop) return undefined;
  try {
    if (ts.isPropertyAssignment(prop)) return evaluator.evaluate(prop.initializer);
    if (ts.isShorthandPropertyAssignment(prop)) return evaluator.evaluate(prop.name);
  } catch (err) {
    if (!(err instanceof NotStaticError)) throw err;
  }
  return null;
}

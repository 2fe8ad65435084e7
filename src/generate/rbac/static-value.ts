import type { ts as TS } from 'ts-morph';
import { ts } from '../../source/ts.ts';
import { BUILTIN_KINDS } from './builtin-kinds.ts';

/** A value read from source without running it. */
export type StaticValue = string | number | boolean | null | readonly StaticValue[] | StaticObject;
export interface StaticObject {
  readonly [key: string]: StaticValue;
}

/** Thrown when an expression cannot be read statically; `node` is the offending expression. */
export class NotStaticError extends Error {
  readonly node: TS.Node;
  constructor(node: TS.Node, reason: string) {
    super(reason);
    this.node = node;
  }
}

/** `op-gen/runtime`, or op-gen's own runtime sources (`.../runtime`, `.../runtime/index.ts`, `.../runtime/builtin-kinds.ts`). */
const RUNTIME_MODULE = /(^op-gen\/runtime$)|(\/runtime(\/(index|builtin-kinds)(\.[cm]?[jt]s)?)?$)/;
const MAX_DEPTH = 32;

function isObject(value: StaticValue): value is StaticObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The import a local name comes from: `{ module, name }` for `import { name as local } from 'module'`. */
function importOf(symbol: TS.Symbol): { module: string; name: string } | undefined {
  const decl = symbol.declarations?.[0];
  if (!decl || !ts.isImportSpecifier(decl)) return undefined;
  const importDecl = decl.parent.parent.parent;
  if (!ts.isStringLiteral(importDecl.moduleSpecifier)) return undefined;
  return { module: importDecl.moduleSpecifier.text, name: (decl.propertyName ?? decl.name).text };
}

/** Reads literals, object literals, `as const`, consts across imports, `defineKind({...})` and `builtinKinds.X`. */
export class StaticEvaluator {
  readonly checker: TS.TypeChecker;
  /** Shows a source file's name in messages (relative to the project root). */
  readonly display: (fileName: string) => string;
  constructor(checker: TS.TypeChecker, display: (fileName: string) => string = (f) => f) {
    this.checker = checker;
    this.display = display;
  }

  evaluate(node: TS.Expression, depth = 0): StaticValue {
    if (depth > MAX_DEPTH) throw new NotStaticError(node, 'the value refers to itself');
    const next = depth + 1;
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
    if (ts.isNumericLiteral(node)) return Number(node.text);
    if (node.kind === ts.SyntaxKind.TrueKeyword) return true;
    if (node.kind === ts.SyntaxKind.FalseKeyword) return false;
    if (node.kind === ts.SyntaxKind.NullKeyword) return null;
    if (
      ts.isParenthesizedExpression(node) ||
      ts.isAsExpression(node) ||
      ts.isSatisfiesExpression(node) ||
      ts.isNonNullExpression(node) ||
      ts.isTypeAssertionExpression(node)
    ) {
      return this.evaluate(node.expression, next);
    }
    if (ts.isTemplateExpression(node)) {
      let out = node.head.text;
      for (const span of node.templateSpans) {
        out += String(this.evaluate(span.expression, next)) + span.literal.text;
      }
      return out;
    }
    if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.PlusToken) {
      const left = this.evaluate(node.left, next);
      const right = this.evaluate(node.right, next);
      if (typeof left === 'string' || typeof right === 'string') return String(left) + String(right);
      if (typeof left === 'number' && typeof right === 'number') return left + right;
      throw new NotStaticError(node, 'only strings and numbers can be added');
    }
    if (ts.isArrayLiteralExpression(node)) {
      return node.elements.map((e) => {
        if (ts.isSpreadElement(e)) throw new NotStaticError(e, 'spread in an array');
        return this.evaluate(e, next);
      });
    }
    if (ts.isObjectLiteralExpression(node)) return this.evaluateObject(node, next);
    if (ts.isIdentifier(node)) return this.evaluateIdentifier(node, next);
    if (ts.isPropertyAccessExpression(node)) {
      return this.member(node, this.evaluate(node.expression, next), node.name.text);
    }
    if (ts.isElementAccessExpression(node)) {
      const key = this.evaluate(node.argumentExpression, next);
      if (typeof key !== 'string') throw new NotStaticError(node.argumentExpression, 'a non-string index');
      return this.member(node, this.evaluate(node.expression, next), key);
    }
    if (ts.isCallExpression(node)) return this.evaluateCall(node, next);
    throw new NotStaticError(node, `a ${ts.SyntaxKind[node.kind]} cannot be read without running the code`);
  }

  private member(node: TS.Node, object: StaticValue, key: string): StaticValue {
    if (!isObject(object) || !(key in object)) throw new NotStaticError(node, `no property \`${key}\``);
    return object[key] ?? null;
  }

  private evaluateObject(node: TS.ObjectLiteralExpression, depth: number): StaticObject {
    const out: Record<string, StaticValue> = {};
    for (const prop of node.properties) {
      if (ts.isPropertyAssignment(prop)) {
        out[this.propertyName(prop.name)] = this.evaluate(prop.initializer, depth);
      } else if (ts.isShorthandPropertyAssignment(prop)) {
        out[prop.name.text] = this.evaluateIdentifier(prop.name, depth);
      } else if (ts.isSpreadAssignment(prop)) {
        const spread = this.evaluate(prop.expression, depth);
        if (!isObject(spread)) throw new NotStaticError(prop, 'spread of a non-object');
        Object.assign(out, spread);
      } else {
        throw new NotStaticError(prop, 'methods and accessors cannot be read statically');
      }
    }
    return out;
  }

  private propertyName(name: TS.PropertyName): string {
    if (ts.isIdentifier(name) || ts.isStringLiteral(name) || ts.isNumericLiteral(name)) return name.text;
    if (ts.isComputedPropertyName(name)) {
      const key = this.evaluate(name.expression);
      if (typeof key === 'string') return key;
    }
    throw new NotStaticError(name, 'a property name that is not a literal');
  }

  private symbolOf(node: TS.Identifier): TS.Symbol | undefined {
    if (ts.isShorthandPropertyAssignment(node.parent) && node.parent.name === node) {
      return this.checker.getShorthandAssignmentValueSymbol(node.parent);
    }
    return this.checker.getSymbolAtLocation(node);
  }

  private evaluateIdentifier(node: TS.Identifier, depth: number): StaticValue {
    if (node.text === 'undefined') return null;
    let symbol = this.symbolOf(node);
    if (!symbol) throw new NotStaticError(node, `\`${node.text}\` is not declared`);
    if (symbol.flags & ts.SymbolFlags.Alias) {
      const imported = importOf(symbol);
      if (imported?.name === 'builtinKinds' && RUNTIME_MODULE.test(imported.module)) return BUILTIN_KINDS;
      const namespaceImport = symbol.declarations?.[0];
      if (
        namespaceImport &&
        ts.isNamespaceImport(namespaceImport) &&
        ts.isStringLiteral(namespaceImport.parent.parent.moduleSpecifier) &&
        RUNTIME_MODULE.test(namespaceImport.parent.parent.moduleSpecifier.text)
      ) {
        return { builtinKinds: BUILTIN_KINDS };
      }
      symbol = this.checker.getAliasedSymbol(symbol);
    }
    const decl = symbol.valueDeclaration ?? symbol.declarations?.[0];
    if (decl && ts.isVariableDeclaration(decl) && decl.initializer) {
      const list = decl.parent;
      if (ts.isVariableDeclarationList(list) && list.flags & ts.NodeFlags.Const) {
        return this.evaluate(decl.initializer, depth);
      }
      throw new NotStaticError(node, `\`${node.text}\` is not a const`);
    }
    throw new NotStaticError(
      node,
      `\`${node.text}\` is not a const with an initializer in the scanned sources` +
        (symbol.flags & ts.SymbolFlags.Alias ? ' (its module was not found)' : ''),
    );
  }

  private evaluateCall(node: TS.CallExpression, depth: number): StaticValue {
    const callee = node.expression;
    let name: string | undefined;
    if (ts.isIdentifier(callee)) {
      const symbol = this.checker.getSymbolAtLocation(callee);
      name = (symbol && importOf(symbol)?.name) ?? callee.text;
    } else if (ts.isPropertyAccessExpression(callee)) {
      name = callee.name.text;
    }
    const arg = node.arguments[0];
    if (name === 'defineKind' && arg) return this.evaluate(arg, depth);
    throw new NotStaticError(node, 'a function call other than defineKind({...})');
  }
}

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import ts from 'typescript';

const SRC = resolve(import.meta.dirname, '..', '..', '..', 'src');

/** The longest a function of src/ may be, in lines from its first token to its closing brace. */
const MAX_LINES = 120;

/**
 * Functions that are data tables (a literal returned or built, no logic), excepted by name as
 * `file:name` (relative to src/). None is longer than MAX_LINES today; a table added here says why.
 */
const DATA_TABLES: readonly string[] = [];

interface Measured {
  /** Relative to src/. */
  readonly file: string;
  readonly line: number;
  readonly name: string;
  readonly lines: number;
}

/** What a function is called where it is written: its name, its variable, its property or `Class.method`. */
function nameOf(node: ts.SignatureDeclaration, source: ts.SourceFile): string {
  const own = node.name?.getText(source);
  const parent = node.parent;
  if (own !== undefined) {
    if (ts.isClassLike(parent)) return `${parent.name?.getText(source) ?? '<class>'}.${own}`;
    if (ts.isObjectLiteralExpression(parent)) {
      const holder = parent.parent;
      const owner =
        ts.isVariableDeclaration(holder) || ts.isPropertyAssignment(holder)
          ? holder.name.getText(source)
          : '<object>';
      return `${owner}.${own}`;
    }
    return own;
  }
  if (ts.isConstructorDeclaration(node) && ts.isClassLike(parent))
    return `${parent.name?.getText(source) ?? '<class>'}.constructor`;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))
    return parent.name.getText(source);
  if (ts.isCallExpression(parent))
    return `<callback of ${parent.expression.getText(source).replace(/\s+/g, ' ').slice(0, 60)}>`;
  return '<anonymous>';
}

/** Every function with a body in `text` (declarations, methods, accessors, constructors, arrows, expressions). */
export function measure(file: string, text: string): Measured[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: Measured[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      found.push({ file, line: first + 1, name: nameOf(node, source), lines: last - first + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Every function of src/, longest first. */
function measureSrc(): Measured[] {
  return readdirSync(SRC, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.d.ts'))
    .map((e) => join(e.parentPath, e.name))
    .flatMap((path) => measure(relative(SRC, path), readFileSync(path, 'utf8')))
    .sort((a, b) => b.lines - a.lines || a.file.localeCompare(b.file) || a.line - b.line);
}

/** Why a function is allowed past MAX_LINES, or undefined. */
function exception(f: Measured): string | undefined {
  return DATA_TABLES.includes(`${f.file}:${f.name}`) ? 'data table' : undefined;
}

/** The functions longer than `max` that no exception covers, as `file:line name (N lines)`. */
export function tooLong(functions: readonly Measured[], max: number): string[] {
  return functions
    .filter((f) => f.lines > max && exception(f) === undefined)
    .map((f) => `${f.file}:${f.line} ${f.name} (${f.lines} lines)`);
}

describe('function length in src/', () => {
  const functions = measureSrc();

  it(`no function is longer than ${MAX_LINES} lines (the ten longest are listed)`, (t) => {
    assert.ok(functions.length > 1000, `measured ${functions.length} functions`);
    for (const f of functions.slice(0, 10)) {
      const why = f.lines > MAX_LINES ? exception(f) : undefined;
      t.diagnostic(`${f.lines} lines: ${f.file}:${f.line} ${f.name}${why ? ` (excepted: ${why})` : ''}`);
    }
    assert.deepEqual(tooLong(functions, MAX_LINES), []);
  });

  it('every data table excepted by name is a function of src/', () => {
    const names = new Set(functions.map((f) => `${f.file}:${f.name}`));
    assert.deepEqual(
      DATA_TABLES.filter((n) => !names.has(n)),
      [],
    );
  });

  it('the measure itself can fail: names, lengths and a long function in every form', () => {
    const body = (n: number): string =>
      Array.from({ length: n - 2 }, (_, i) => `  const v${i} = ${i};`).join('\n');
    const text = [
      `export function declared(): void {\n${body(121)}\n}`,
      `const arrow = (): void => {\n${body(3)}\n};`,
      `class Shape {\n  constructor() {\n${body(4)}\n  }\n  area(): number {\n${body(122)}\n    return 1;\n  }\n}`,
      `items.forEach((x) => {\n${body(5)}\n});`,
      `const command = {\n  run() {\n${body(6)}\n  },\n};`,
    ].join('\n');
    const measured = measure('x/y.ts', text);
    assert.deepEqual(
      measured.map((f) => [f.name, f.lines]),
      [
        ['declared', 121],
        ['arrow', 3],
        ['Shape.constructor', 4],
        ['Shape.area', 123],
        ['<callback of items.forEach>', 5],
        ['command.run', 6],
      ],
    );
    assert.deepEqual(tooLong(measured, MAX_LINES), [
      'x/y.ts:1 declared (121 lines)',
      `x/y.ts:${measured[3]?.line} Shape.area (123 lines)`,
    ]);
    const beside = measure('source/other.ts', `function parse(): void {\n${body(200)}\n}`);
    assert.deepEqual(tooLong(beside, MAX_LINES), ['source/other.ts:1 parse (200 lines)']);
  });
});

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import ts from 'typescript';

const SRC = resolve(import.meta.dirname, '..', '..', '..', 'src');

/** Every module of src/ and the src/ modules it imports (relative imports, type-only ones included). */
function importGraph(): Map<string, string[]> {
  const files = readdirSync(SRC, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.d.ts'))
    .map((e) => join(e.parentPath, e.name));
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    graph.set(
      file,
      importedFiles
        .map((i) => i.fileName)
        .filter((name) => name.startsWith('.'))
        .map((name) => resolve(dirname(file), name.replace(/\.js$/, '.ts'))),
    );
  }
  return graph;
}

/** The strongly connected components with more than one module (Tarjan), as paths relative to src/. */
function importCycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) ?? 0, index.get(w) ?? 0));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string | undefined;
    do {
      w = stack.pop();
      if (w === undefined) break;
      onStack.delete(w);
      component.push(relative(SRC, w));
    } while (w !== v);
    if (component.length > 1) cycles.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return cycles;
}

/** Folders of src/ that sit below the generators and commands (docs/design/contracts.md). */
const LOWER = ['api-types', 'json', 'markers', 'k8s-names', 'kustomize', 'source'];
/** Folders above them: a lower folder importing one of these runs back up the layers. */
const UPPER = ['generate', 'bundle', 'catalog', 'scaffold', 'cli', 'crd-diff', 'installer', 'build'];

/** Imports from a LOWER folder into an UPPER one, as `from -> to` relative to src/. */
function upwardImports(graph: Map<string, string[]>): string[] {
  const top = (file: string): string => relative(SRC, file).split('/')[0] ?? '';
  const found: string[] = [];
  for (const [from, tos] of graph) {
    if (!LOWER.includes(top(from))) continue;
    for (const to of tos)
      if (UPPER.includes(top(to))) found.push(`${relative(SRC, from)} -> ${relative(SRC, to)}`);
  }
  return found;
}

describe('src/ import graph', () => {
  it('api-types/, markers/, k8s-names/ and source/ import nothing from generate/, bundle/, scaffold/ or cli/', () => {
    assert.deepEqual(upwardImports(importGraph()), []);
    // The check itself can fail:
    assert.deepEqual(
      upwardImports(new Map([[join(SRC, 'markers', 'x.ts'), [join(SRC, 'generate', 'y.ts')]]])),
      ['markers/x.ts -> generate/y.ts'],
    );
  });

  it('markers/ is the generic machinery: every marker table lives with the generator that reads it', () => {
    const markers = join(SRC, 'markers');
    const tables = readdirSync(markers).filter((f) =>
      /new MarkerRegistry\b/.test(readFileSync(join(markers, f), 'utf8')),
    );
    assert.deepEqual(tables, []);
    // The tables it found elsewhere (so the pattern itself matches a table):
    const crd = readFileSync(join(SRC, 'generate', 'crd', 'markers.ts'), 'utf8');
    assert.match(crd, /new MarkerRegistry\b/);
  });

  it('has no import cycle (type-only imports count too)', () => {
    assert.deepEqual(importCycles(importGraph()), []);
  });

  it('finds a cycle when there is one (the check itself can fail)', () => {
    const a = join(SRC, 'a.ts');
    const b = join(SRC, 'b.ts');
    const c = join(SRC, 'c.ts');
    assert.deepEqual(
      importCycles(
        new Map([
          [a, [b]],
          [b, [c]],
          [c, [a]],
        ]),
      ),
      [['a.ts', 'b.ts', 'c.ts']],
    );
  });
});

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

/**
 * The strongly connected components with more than one node (Tarjan), each named by `name`
 * (module paths relative to src/ by default).
 */
function importCycles(
  graph: Map<string, string[]>,
  name: (node: string) => string = (node) => relative(SRC, node),
): string[][] {
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
      component.push(name(w));
    } while (w !== v);
    if (component.length > 1) cycles.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return cycles;
}

/** Folders of src/ that sit below the generators and commands (docs/design/architecture.md). */
const LOWER = [
  'api-types',
  'json',
  'markers',
  'k8s-names',
  'kustomize',
  'source',
  'project',
  'generation',
  'runtime',
  'client',
];
/** Folders above them: a lower folder importing one of these runs back up the layers. */
const UPPER = [
  'generate',
  'bundle',
  'catalog',
  'scaffold',
  'cli',
  'crd-diff',
  'installer',
  'image-bundle',
  'dev-loop',
  'testing',
];
/** The runtime an operator loads (op-gen/runtime): what it reaches must not include a generator. */
const RUNTIME = ['runtime', 'client'];
/** Folders that generate, scaffold or render: code an operator never runs. */
const GENERATORS = [
  ...UPPER.filter((f) => f !== 'testing'),
  'generation',
  'source',
  'project',
  'markers',
  'kustomize',
];

/** The top folder of a module of src/, or undefined for a file directly in src/ (errors.ts, version.ts, index.ts). */
function folderOf(file: string): string | undefined {
  const parts = relative(SRC, file).split('/');
  return parts.length > 1 ? parts[0] : undefined;
}

/** Folder-to-folder import edges, each with one import that makes it (`from -> to`, relative to src/). */
function folderEdges(graph: Map<string, string[]>): Map<string, string> {
  const edges = new Map<string, string>();
  for (const [from, tos] of graph) {
    const a = folderOf(from);
    for (const to of tos) {
      const b = folderOf(to);
      if (a === undefined || b === undefined || a === b) continue;
      const edge = `${a} -> ${b}`;
      if (!edges.has(edge)) edges.set(edge, `${relative(SRC, from)} -> ${relative(SRC, to)}`);
    }
  }
  return edges;
}

/** The folder graph as adjacency lists (for importCycles and reachability). */
function folderGraph(edges: Iterable<string>): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const edge of edges) {
    const [a = '', b = ''] = edge.split(' -> ');
    graph.set(a, [...(graph.get(a) ?? []), b]);
    if (!graph.has(b)) graph.set(b, []);
  }
  return graph;
}

const ARCHITECTURE = resolve(SRC, '..', 'docs', 'design', 'architecture.md');

/**
 * The folders and arrows of the mermaid diagram in docs/design/architecture.md: nodes `id["folder/ (...)"]`,
 * arrows `a --> b` or `a -- "why" --> b`, either side a list `a & b`. Throws on a line it cannot read
 * or an arrow naming an unknown node, so a diagram typo is not read as a missing arrow.
 */
function diagram(markdown: string): { folders: Set<string>; edges: Set<string> } {
  const block = /```mermaid\n([\s\S]*?)```/.exec(markdown)?.[1];
  if (block === undefined) throw new Error('architecture.md has no mermaid block');
  const ids = new Map<string, string>();
  const arrows: [string[], string[], number][] = [];
  block.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('%%') || line === 'flowchart TD') return;
    const node = /^([\w-]+)\["([\w-]+)\/ /.exec(line);
    if (node) {
      ids.set(node[1] ?? '', node[2] ?? '');
      return;
    }
    const arrow = /^([\w\s&-]+?)\s*(?:--\s*"[^"]*"\s*)?-->\s*([\w\s&-]+)$/.exec(line);
    if (!arrow) throw new Error(`architecture.md mermaid line ${i + 1}: cannot read ${JSON.stringify(line)}`);
    const side = (text: string | undefined): string[] => (text ?? '').split('&').map((t) => t.trim());
    arrows.push([side(arrow[1]), side(arrow[2]), i + 1]);
  });
  const edges = new Set<string>();
  for (const [froms, tos, line] of arrows)
    for (const a of froms)
      for (const b of tos) {
        const fa = ids.get(a);
        const fb = ids.get(b);
        if (fa === undefined || fb === undefined)
          throw new Error(`architecture.md mermaid line ${line}: unknown node ${fa === undefined ? a : b}`);
        edges.add(`${fa} -> ${fb}`);
      }
  return { folders: new Set(ids.values()), edges };
}

/** Edges of the code that the diagram lacks (with the import that makes each), and arrows no import makes. */
function diagramDrift(code: Map<string, string>, drawn: Set<string>): { missing: string[]; stale: string[] } {
  return {
    missing: [...code]
      .filter(([edge]) => !drawn.has(edge))
      .map(([edge, example]) => `${edge} (${example})`)
      .sort(),
    stale: [...drawn].filter((edge) => !code.has(edge)).sort(),
  };
}

/** The folders reachable from `start` in the folder graph. */
function reachable(graph: Map<string, string[]>, start: string): Set<string> {
  const seen = new Set<string>();
  const todo = [start];
  for (let f = todo.pop(); f !== undefined; f = todo.pop())
    for (const g of graph.get(f) ?? [])
      if (!seen.has(g)) {
        seen.add(g);
        todo.push(g);
      }
  return seen;
}

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
  it('the lower folders (api-types/ ... runtime/, client/) import nothing from the generators and commands', () => {
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

  describe('folders', () => {
    const code = folderEdges(importGraph());
    const drawn = diagram(readFileSync(ARCHITECTURE, 'utf8'));

    it('every folder of src/ is a node of the diagram in docs/design/architecture.md', () => {
      const folders = readdirSync(SRC, { withFileTypes: true })
        .filter((e) => e.isDirectory())
        .map((e) => e.name);
      assert.deepEqual(
        folders.filter((f) => !drawn.folders.has(f)),
        [],
      );
      assert.deepEqual(
        [...drawn.folders].filter((f) => !folders.includes(f)),
        [],
      );
    });

    it('every folder-to-folder import is an arrow of the diagram, and every arrow an import', () => {
      assert.deepEqual(diagramDrift(code, drawn.edges), { missing: [], stale: [] });
    });

    it('the folder graph has no cycle', () => {
      assert.deepEqual(
        importCycles(folderGraph(code.keys()), (f) => f),
        [],
      );
    });

    it('the runtime (runtime/, client/) reaches no generator folder, directly or through another', () => {
      const graph = folderGraph(code.keys());
      for (const r of RUNTIME)
        assert.deepEqual(
          [...reachable(graph, r)].filter((f) => GENERATORS.includes(f)),
          [],
          `${r}/ reaches a generator folder`,
        );
    });

    it('files directly in src/ (errors.ts, version.ts) import no folder', () => {
      const roots = [...importGraph()].filter(
        ([file]) => folderOf(file) === undefined && !file.endsWith('/index.ts'),
      );
      assert.ok(roots.length >= 2, 'errors.ts and version.ts were found');
      for (const [file, tos] of roots)
        assert.deepEqual(
          tos.filter((to) => folderOf(to) !== undefined).map((to) => relative(SRC, to)),
          [],
          relative(SRC, file),
        );
    });

    it('the checks themselves can fail: a missing arrow, a stale arrow, a folder cycle, a runtime path to a generator', () => {
      const imports = new Map([
        [join(SRC, 'kustomize', 'a.ts'), [join(SRC, 'installer', 'b.ts')]],
        [join(SRC, 'installer', 'b.ts'), [join(SRC, 'kustomize', 'c.ts')]],
      ]);
      const edges = folderEdges(imports);
      assert.deepEqual(diagramDrift(edges, new Set(['installer -> kustomize', 'cli -> installer'])), {
        missing: ['kustomize -> installer (kustomize/a.ts -> installer/b.ts)'],
        stale: ['cli -> installer'],
      });
      assert.deepEqual(
        importCycles(folderGraph(edges.keys()), (f) => f),
        [['installer', 'kustomize']],
      );
      const graph = folderGraph(['runtime -> shared', 'shared -> generation']);
      assert.deepEqual([...reachable(graph, 'runtime')], ['shared', 'generation']);
      const parsed = diagram(
        '```mermaid\nflowchart TD\n  a["x/ (X)"]\n  b["y/ (Y)"]\n  c["z/ (Z)"]\n  a -- "why" --> b & c\n  b & c --> a\n```',
      );
      assert.deepEqual([...parsed.edges].sort(), ['x -> y', 'x -> z', 'y -> x', 'z -> x']);
      assert.throws(() => diagram('```mermaid\n  a --> b\n```'), /line 1: unknown node a/);
      assert.throws(() => diagram('```mermaid\n  a ==> b\n```'), /line 1: cannot read/);
    });
  });
});

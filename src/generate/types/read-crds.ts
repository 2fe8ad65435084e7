import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, resolve } from 'node:path';
import { OpGenError } from '../../errors.ts';
import { readYamlDocuments } from '../../shared/yaml-documents.ts';
import { ProblemsError } from '../../shared/problems.ts';
import { crdShapeProblems } from '../../shared/crd-shape.ts';
import { readYamlFast, type FastDocument } from './read-yaml-fast.ts';

/** One CRD document and where it came from. */
export interface CrdDocument {
  /** File as given (relative to cwd when inside it), `<stdin>` or `cluster:<name>`. */
  readonly source: string;
  /** 0-based index of the document in its file. */
  readonly index: number;
  /** 1-based line where the document starts. */
  readonly line: number;
  readonly crd: CrdV1;
}

export interface CrdVersion {
  readonly name: string;
  readonly served?: boolean;
  readonly storage?: boolean;
  readonly schema?: { readonly openAPIV3Schema?: Readonly<Record<string, unknown>> };
  readonly subresources?: { readonly status?: unknown; readonly scale?: unknown };
}

/** The part of an apiextensions.k8s.io/v1 CustomResourceDefinition that types are made from. */
export interface CrdV1 {
  readonly apiVersion: 'apiextensions.k8s.io/v1';
  readonly kind: 'CustomResourceDefinition';
  readonly metadata?: { readonly name?: string };
  readonly spec: {
    readonly group: string;
    readonly names: { readonly kind: string; readonly plural: string; readonly listKind?: string };
    readonly scope: 'Namespaced' | 'Cluster';
    readonly versions: readonly CrdVersion[];
  };
}

/** `file (document N, line L)`: how errors name a document. */
export function describeDocument(doc: Pick<CrdDocument, 'source' | 'index' | 'line'>): string {
  return `${doc.source}:${doc.line} (document ${doc.index})`;
}

/** Reads every CRD in a file, in the YAML files of a directory (sorted, not recursive) or on stdin (`-`). */
export function readCrdInput(from: string, cwd: string, stdin?: () => string): CrdDocument[] {
  if (from === '-') {
    const text = stdin ? stdin() : readFileSync(0, 'utf8');
    return parseCrdDocuments(text, '<stdin>');
  }
  const path = resolve(cwd, from);
  let isDir: boolean;
  try {
    isDir = statSync(path).isDirectory();
  } catch {
    throw new OpGenError(`--from ${from}: no such file or directory.`);
  }
  const files = isDir
    ? readdirSync(path)
        .filter((f) => ['.yaml', '.yml', '.json'].includes(extname(f)))
        .sort()
        .map((f) => join(path, f))
    : [path];
  if (files.length === 0)
    throw new OpGenError(`--from ${from}: the directory holds no .yaml/.yml/.json file.`);
  return files.flatMap((file) => {
    const shown = relative(cwd, file).startsWith('..') ? file : relative(cwd, file);
    return parseCrdDocuments(readFileSync(file, 'utf8'), shown);
  });
}

/** Parses a multi-document YAML text; every document must be a v1 CRD (empty documents are skipped). */
export function parseCrdDocuments(text: string, source: string): CrdDocument[] {
  const fast = readYamlFast(text);
  if (fast) return crdDocuments(fast, source);
  const out: CrdDocument[] = [];
  const docs = readYamlDocuments(text, (p) => {
    const where = p.col === undefined ? `${source}:${p.line}` : `${source}:${p.line}:${p.col}`;
    return p.kind === 'syntax'
      ? new OpGenError(`${where} (document ${p.index}): YAML syntax error: ${p.message}. Fix the YAML.`)
      : new OpGenError(`${where} (document ${p.index}): YAML error: ${p.message}. Fix the YAML.`);
  });
  for (const { value, line, index } of docs) out.push(...crdDocuments([{ value, line }], source, index));
  return out;
}

/** The CRDs of parsed documents (the first is document `firstIndex` of its file); empty ones skipped. */
function crdDocuments(docs: readonly FastDocument[], source: string, firstIndex = 0): CrdDocument[] {
  const out: CrdDocument[] = [];
  docs.forEach(({ value, line }, i) => {
    const index = firstIndex + i;
    if (value === null || value === undefined) return;
    const where = describeDocument({ source, index, line });
    // `kubectl get crd -o yaml` prints a List whose items are the CRDs.
    const items = listItems(value);
    if (items === undefined) out.push({ source, index, line, crd: asCrd(value, where) });
    else
      items.forEach((item, j) => out.push({ source, index, line, crd: asCrd(item, `${where} items[${j}]`) }));
  });
  return out;
}

/** The items of a `kind: List` (or `<Kind>List`) document, undefined for any other document. */
function listItems(value: unknown): unknown[] | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const obj = value as Record<string, unknown>;
  const kind = obj['kind'];
  if (typeof kind !== 'string' || !kind.endsWith('List') || !Array.isArray(obj['items'])) return undefined;
  return obj['items'] as unknown[];
}

/** Checks that a parsed value is a v1 CRD with what type generation needs. */
export function asCrd(value: unknown, where: string): CrdV1 {
  const obj = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
  if (obj['kind'] !== 'CustomResourceDefinition') {
    const found = typeof obj['kind'] === 'string' ? `a ${obj['kind']}` : 'not a Kubernetes object';
    throw new OpGenError(
      `${where}: not a CustomResourceDefinition (${found}). Pass only CRD manifests to --from.`,
    );
  }
  if (obj['apiVersion'] !== 'apiextensions.k8s.io/v1') {
    throw new OpGenError(
      `${where}: apiVersion ${String(obj['apiVersion'])} is not supported; convert the CRD to apiextensions.k8s.io/v1.`,
    );
  }
  const problems = crdShapeProblems(obj['spec']);
  if (problems.length > 0) {
    throw new ProblemsError(problems.map((p) => ({ text: `${where}: ${p}. Fix the CRD.` })));
  }
  return obj as unknown as CrdV1;
}

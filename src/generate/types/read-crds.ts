import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { OpGenError } from '../../errors.ts';
import type { JSONSchemaProps } from '../crd/schema-types.ts';

export interface CrdVersion {
  readonly name: string;
  readonly served?: boolean;
  readonly storage?: boolean;
  readonly schema?: { readonly openAPIV3Schema?: JSONSchemaProps };
}

export interface CrdDocument {
  readonly apiVersion: 'apiextensions.k8s.io/v1';
  readonly kind: 'CustomResourceDefinition';
  readonly metadata: { readonly name: string };
  readonly spec: {
    readonly group: string;
    readonly names: { readonly kind: string; readonly plural: string; readonly singular?: string };
    readonly scope: 'Namespaced' | 'Cluster';
    readonly versions: readonly CrdVersion[];
  };
}

/** Where a CRD came from, for error messages: `file` (document N). */
export interface CrdSource {
  readonly origin: string;
  readonly crd: CrdDocument;
}

function describe(origin: string, index: number): string {
  return `${origin} (document ${index + 1})`;
}

function validate(value: unknown, where: string): CrdDocument {
  const doc = value as Partial<CrdDocument> | null;
  if (!doc || typeof doc !== 'object')
    throw new OpGenError(`${where}: not a YAML mapping; expected a CustomResourceDefinition`);
  if (doc.kind !== 'CustomResourceDefinition' || doc.apiVersion !== 'apiextensions.k8s.io/v1') {
    throw new OpGenError(
      `${where}: not an apiextensions.k8s.io/v1 CustomResourceDefinition (found ${String(doc.apiVersion)} ${String(doc.kind)}). Pass CRD manifests only.`,
    );
  }
  const spec = doc.spec;
  if (!spec?.group || !spec.names?.kind || !spec.names.plural || !Array.isArray(spec.versions)) {
    throw new OpGenError(`${where}: the CRD lacks spec.group, spec.names.kind/plural or spec.versions`);
  }
  return doc as CrdDocument;
}

/** Parses every document of a YAML (or JSON) text; errors name the origin and the document index. */
export function parseCrds(text: string, origin: string): CrdSource[] {
  const docs = parseAllDocuments(text);
  // Syntax first, for every document: a broken file is reported as such, not as a bad CRD.
  docs.forEach((doc, i) => {
    const error = doc.errors[0];
    if (error) {
      const line = error.linePos?.[0]?.line;
      throw new OpGenError(
        `${origin}${line ? `:${line}` : ''} (document ${i + 1}): YAML syntax error: ${error.message.split('\n')[0]}`,
      );
    }
  });
  const out: CrdSource[] = [];
  docs.forEach((doc, i) => {
    const value: unknown = doc.toJS();
    if (value === null || value === undefined) return;
    out.push({ origin: describe(origin, i), crd: validate(value, describe(origin, i)) });
  });
  return out;
}

/** CRDs from a file, every .yaml/.yml/.json file of a directory (sorted), or `-` (stdin text given). */
export function readCrds(path: string, stdin?: string): CrdSource[] {
  if (path === '-') return parseCrds(stdin ?? '', '<stdin>');
  let files: string[];
  try {
    files = statSync(path).isDirectory()
      ? readdirSync(path)
          .filter((f) => /\.(ya?ml|json)$/.test(f))
          .sort()
          .map((f) => join(path, f))
      : [path];
  } catch {
    throw new OpGenError(
      `${path}: no such file or directory. Pass a CRD file, a directory of them, or - for stdin.`,
    );
  }
  return files.flatMap((f) => parseCrds(readFileSync(f, 'utf8'), f));
}

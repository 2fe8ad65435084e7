import { join, relative, resolve } from 'node:path';
import { OpGenError } from '../../errors.ts';
import { changedFiles, writeFilesAtomically, type OutputFile } from '../../shared/atomic-write.ts';
import { renderTemplateSet } from '../../scaffold/render.ts';
import { loadApiModel, type ApiKind } from '../crd/index.ts';

export interface GenerateClientOptions {
  readonly cwd: string;
  /** API source folder relative to cwd. Default `src/api`. */
  readonly apiDir?: string;
  /** Output folder relative to cwd. Default `src/client`. */
  readonly outDir?: string;
  readonly check?: boolean;
}

export interface GenerateClientResult {
  readonly files: string[];
  readonly changed: string[];
}

interface KindContext {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
  readonly namespaced: boolean;
  readonly apiVersion: string;
  readonly kindFile: string;
  /** Base of the generated names: `Memcached`, or `MemcachedV1` when the kind has several versions. */
  readonly name: string;
  readonly kindVar: string;
  readonly clientVar: string;
  readonly typeImport: string;
}

const lowerFirst = (s: string): string => s.charAt(0).toLowerCase() + s.slice(1);

const upperFirst = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

function contextFor(
  kind: ApiKind,
  cwd: string,
  outDir: string,
  qualify: { group: boolean; version: boolean },
): KindContext {
  const kindFile = kind.kind.toLowerCase();
  // Names stay short (MemcachedClient) unless two versions or groups of the kind would clash.
  const name = `${qualify.group ? upperFirst(kind.group.split('.')[0] ?? '') : ''}${kind.kind}${qualify.version ? upperFirst(kind.version) : ''}`;
  const fileDir = resolve(cwd, outDir, kind.group, kind.version);
  let typeImport = relative(fileDir, join(cwd, kind.location.file)).split('\\').join('/');
  if (!typeImport.startsWith('.')) typeImport = `./${typeImport}`;
  return {
    group: kind.group,
    version: kind.version,
    kind: kind.kind,
    plural: kind.plural,
    namespaced: kind.namespaced,
    apiVersion: `${kind.group}/${kind.version}`,
    kindFile,
    name,
    kindVar: lowerFirst(name),
    clientVar: lowerFirst(name),
    typeImport,
  };
}

/**
 * `op-gen generate client`: one typed client per kind of the API sources, as thin wrappers over the
 * generic ResourceClient of op-gen/runtime, plus listers over the runtime's cache and an index.
 */
export async function generateClients(options: GenerateClientOptions): Promise<GenerateClientResult> {
  const cwd = options.cwd;
  const apiDir = options.apiDir ?? 'src/api';
  const outDir = options.outDir ?? 'src/client';
  const kinds = await loadApiModel({ cwd, apiDir });
  if (kinds.length === 0) {
    throw new OpGenError(
      `no kinds found under ${apiDir}: mark a root interface with @kind (see docs/generate-crd.md)`,
    );
  }
  const sorted = [...kinds].sort((a, b) =>
    `${a.group}/${a.version}/${a.kind}`.localeCompare(`${b.group}/${b.version}/${b.kind}`),
  );
  const groupsOf = new Map<string, Set<string>>();
  const versionsOf = new Map<string, Set<string>>();
  for (const k of sorted) {
    groupsOf.set(k.kind, (groupsOf.get(k.kind) ?? new Set()).add(k.group));
    versionsOf.set(
      `${k.group}/${k.kind}`,
      (versionsOf.get(`${k.group}/${k.kind}`) ?? new Set()).add(k.version),
    );
  }
  const contexts = sorted.map((k) =>
    contextFor(k, cwd, outDir, {
      group: (groupsOf.get(k.kind)?.size ?? 0) > 1,
      version: (versionsOf.get(`${k.group}/${k.kind}`)?.size ?? 0) > 1,
    }),
  );
  const rendered = [
    ...contexts.flatMap((c) => renderTemplateSet('generate-client/kind', c)),
    ...renderTemplateSet('generate-client/index', { kinds: contexts }),
  ];
  const files: OutputFile[] = rendered.map((f) => ({
    path: resolve(cwd, outDir, f.path),
    content: f.content,
  }));
  const rel = (p: string): string => relative(cwd, p);
  if (options.check) return { files: files.map((f) => rel(f.path)), changed: changedFiles(files).map(rel) };
  const changed = writeFilesAtomically(files);
  return { files: files.map((f) => rel(f.path)), changed: changed.map(rel) };
}

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { OpGenError } from '../errors.ts';
import { readYamlDocuments } from '../shared/yaml-documents.ts';
import { renderWith, type Renderer } from '../kustomize/index.ts';

/** A Kubernetes object as read from YAML, with where it came from. */
export interface Manifest {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata?: {
    name?: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  readonly [key: string]: unknown;
}

export interface Located<T = Manifest> {
  readonly file: string;
  readonly object: T;
}

/** Every document of a YAML file; errors name the file (relative to `root`) and line. */
export function readYamlFile(path: string, root: string): Located[] {
  const rel = relative(root, path);
  const docs = readYamlDocuments(
    readFileSync(path, 'utf8'),
    (p) =>
      new OpGenError(
        `${rel}:${p.line}: YAML ${p.kind === 'syntax' ? 'syntax error' : 'error'}: ${p.message}`,
      ),
  );
  const out: Located[] = [];
  for (const { value } of docs) {
    if (value && typeof value === 'object' && !Array.isArray(value))
      out.push({ file: rel, object: value as Manifest });
  }
  return out;
}

/** The objects of every .yaml/.yml file in `dir` (not kustomization.yaml), sorted by file name. */
export function readYamlDir(dir: string, root: string): Located[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => /\.ya?ml$/.test(f) && f !== 'kustomization.yaml')
    .sort()
    .flatMap((f) => readYamlFile(join(dir, f), root));
}

/**
 * The objects a kustomization folder deploys, as `kustomize build <dir>` renders them, by the renderer
 * kustomize/render-config.ts runs for `renderer` (op-gen's by default, whose unsupported features are
 * errors naming the file and field, never skipped; `auto` or `kubectl` for kubectl kustomize).
 * Without a kustomization.yaml, every YAML file of the folder.
 */
export function readKustomizedDir(dir: string, root: string, renderer: Renderer = 'op-gen'): Located[] {
  if (!existsSync(join(dir, 'kustomization.yaml'))) return readYamlDir(dir, root);
  return renderWith(dir, { root, renderer }).resources.map((o) => ({
    file: o.file,
    object: o.object as Manifest,
  }));
}

/**
 * The files a kustomization lists under `resources` itself (folders such as `../crd` are read on
 * their own and skipped here), in that order, without its transformations: config/default's own
 * objects, to which the bundle applies namePrefix and labels itself.
 */
export function readListedFiles(dir: string, root: string): Located[] {
  const kustomization = join(dir, 'kustomization.yaml');
  if (!existsSync(kustomization)) return readYamlDir(dir, root);
  const listed = (readYamlFile(kustomization, root)[0]?.object as { resources?: unknown } | undefined)
    ?.resources;
  if (!Array.isArray(listed)) return readYamlDir(dir, root);
  return listed
    .filter((r): r is string => typeof r === 'string' && /\.ya?ml$/.test(r))
    .flatMap((r) => {
      const path = join(dir, r);
      if (!existsSync(path)) {
        throw new OpGenError(
          `${relative(root, kustomization)}: resources lists ${r}, which does not exist. Remove it from the list or create the file.`,
        );
      }
      return readYamlFile(path, root);
    });
}

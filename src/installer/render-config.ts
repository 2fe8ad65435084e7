import { spawnSync } from 'node:child_process';
import { yamlPackage } from '../shared/yaml-package.ts';
import { OpGenError } from '../errors.ts';
import { isObject, renderKustomization, type JsonObject } from '../kustomize/index.ts';

/** Which renderer turns a kustomization into objects: `auto` uses kubectl when it is on PATH. */
export type Renderer = 'auto' | 'kubectl' | 'op-gen';

export interface Rendered {
  readonly objects: JsonObject[];
  readonly renderer: 'kubectl' | 'op-gen';
}

function kubectlKustomize(dir: string): { objects: JsonObject[] } | 'missing' {
  const r = spawnSync('kubectl', ['kustomize', dir], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  const error = r.error as NodeJS.ErrnoException | undefined;
  if (error?.code === 'ENOENT') return 'missing';
  if (error) throw new OpGenError(`kubectl kustomize ${dir}: ${error.message}`);
  if (r.status !== 0) {
    const message = r.stderr.trim().split('\n').slice(0, 5).join('\n  ');
    throw new OpGenError(`kubectl kustomize ${dir} failed:\n  ${message}`);
  }
  const objects: JsonObject[] = [];
  for (const doc of yamlPackage().parseAllDocuments(r.stdout)) {
    const value: unknown = doc.toJS();
    if (isObject(value)) objects.push(value);
  }
  return { objects };
}

/**
 * The objects `kubectl apply -k <dir>` would apply: rendered by `kubectl kustomize` when kubectl is on
 * PATH (or `renderer` is `kubectl`), else by op-gen's own renderer, which fails on what it does not render.
 */
export function renderConfig(dir: string, options: { root: string; renderer?: Renderer }): Rendered {
  const renderer = options.renderer ?? 'auto';
  if (renderer !== 'op-gen') {
    const out = kubectlKustomize(dir);
    if (out !== 'missing') return { objects: out.objects, renderer: 'kubectl' };
    if (renderer === 'kubectl') {
      throw new OpGenError(
        '--renderer kubectl: kubectl is not on PATH. Install kubectl, or use --renderer op-gen (or auto).',
      );
    }
  }
  const objects = renderKustomization(dir, { root: options.root }).map((o) => o.object);
  return { objects, renderer: 'op-gen' };
}

import { spawnSync } from 'node:child_process';
import { join, relative, resolve } from 'node:path';
import { yamlPackage } from '../shared/yaml-package.ts';
import { OpGenError } from '../errors.ts';
import { isObject, type JsonObject } from '../json/json.ts';
import { renderKustomization, type RenderedObject } from './render.ts';

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

/** What renderWith returns: each object with the file it came from, and the renderer that ran. */
export interface RenderedWith {
  /** With kubectl, every object's file is the folder's kustomization.yaml (kubectl does not say more). */
  readonly resources: RenderedObject[];
  readonly renderer: 'kubectl' | 'op-gen';
}

/**
 * The one place op-gen chooses a kustomize renderer (build-installer, generate helm and bundle all
 * render through it): `kubectl kustomize` when kubectl is on PATH (or `renderer` is `kubectl`, which
 * then fails without it), else op-gen's own renderer, which fails on what it does not render, naming
 * the file and field. Paths in messages and `file` are relative to `root`.
 */
export function renderWith(dir: string, options: { root: string; renderer?: Renderer }): RenderedWith {
  const renderer = options.renderer ?? 'auto';
  if (renderer !== 'op-gen') {
    const out = kubectlKustomize(dir);
    if (out !== 'missing') {
      const file = relative(resolve(options.root), join(resolve(dir), 'kustomization.yaml'));
      return { resources: out.objects.map((object) => ({ object, file })), renderer: 'kubectl' };
    }
    if (renderer === 'kubectl') {
      throw new OpGenError(
        '--renderer kubectl: kubectl is not on PATH. Install kubectl, or use --renderer op-gen (or auto).',
      );
    }
  }
  return { resources: renderKustomization(dir, { root: options.root }), renderer: 'op-gen' };
}

/** The objects `kubectl apply -k <dir>` would apply, rendered as renderWith chooses. */
export function renderConfig(dir: string, options: { root: string; renderer?: Renderer }): Rendered {
  const { resources, renderer } = renderWith(dir, options);
  return { objects: resources.map((r) => r.object), renderer };
}

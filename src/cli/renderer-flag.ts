import type { Command } from 'commander';
import { UsageError } from '../errors.ts';
import type { Renderer } from '../kustomize/render-config.ts';

const RENDERERS: readonly Renderer[] = ['auto', 'kubectl', 'op-gen'];

/**
 * `--renderer`, the same on every command that renders a kustomization (build-installer, generate
 * helm, bundle); what each value does is decided in kustomize/render-config.ts (renderWith). The
 * default is `auto`, except for `op-gen bundle` (`op-gen`): its CSV keeps config/'s key order
 * (alm-examples) and names the file of each object in its errors, which kubectl's output loses.
 */
export function withRendererFlag(command: Command, byDefault: Renderer = 'auto'): Command {
  return command.option(
    '--renderer <name>',
    'auto (kubectl kustomize when kubectl is on PATH), kubectl or op-gen',
    byDefault,
  );
}

/** The `--renderer` value, or a usage error naming the choices. */
export function rendererOf(flag: string): Renderer {
  const renderer = RENDERERS.find((r) => r === flag);
  if (!renderer) throw new UsageError(`--renderer ${flag}: one of ${RENDERERS.join(', ')}`);
  return renderer;
}

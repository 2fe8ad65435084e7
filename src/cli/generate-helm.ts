import { UsageError } from '../errors.ts';
import type { CommandModule } from './command-module.ts';
import { contextFor } from './context.ts';
import { runGenerator, withOutputFlags, type OutputFlags } from './run-generator.ts';

const RENDERERS = ['auto', 'kubectl', 'op-gen'] as const;

interface HelmFlags extends OutputFlags {
  image?: string;
  out?: string;
  renderer: string;
}

/** `op-gen generate helm`: dist/chart from config/default. The generator loads only when run. */
export const generateHelmCommand: CommandModule = {
  register(parent, io) {
    withOutputFlags(
      parent
        .command('helm')
        .description('generate a Helm chart (dist/chart) from what config/default deploys')
        .option('--image <image>', "the manager image in values.yaml (default: config/manager's)")
        .option('--out <dir>', 'chart folder (default: dist/chart)')
        .option(
          '--renderer <name>',
          'auto (kubectl kustomize when kubectl is on PATH), kubectl or op-gen',
          'auto',
        ),
    ).action(async (flags: HelmFlags, command) => {
      const ctx = contextFor(command, io);
      const renderer = RENDERERS.find((r) => r === flags.renderer);
      if (!renderer) throw new UsageError(`--renderer ${flags.renderer}: one of ${RENDERERS.join(', ')}`);
      await runGenerator(
        ctx,
        'helm',
        {
          renderer,
          ...(flags.image ? { image: flags.image } : {}),
          ...(flags.out === undefined ? {} : { outDir: flags.out }),
        },
        flags,
      );
    });
  },
};

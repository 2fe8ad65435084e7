import type { CommandModule } from './command-module.ts';
import { contextFor } from './context.ts';
import { rendererOf, withRendererFlag } from './renderer-flag.ts';
import { runGenerator, withOutputFlags, type OutputFlags } from './run-generator.ts';

interface HelmFlags extends OutputFlags {
  image?: string;
  out?: string;
  renderer: string;
}

/** `op-gen generate helm`: dist/chart from config/default. The generator loads only when run. */
export const generateHelmCommand: CommandModule = {
  register(parent, io) {
    withOutputFlags(
      withRendererFlag(
        parent
          .command('helm')
          .description('generate a Helm chart (dist/chart) from what config/default deploys')
          .option('--image <image>', "the manager image in values.yaml (default: config/manager's)")
          .option('--out <dir>', 'chart folder (default: dist/chart)'),
      ),
    ).action(async (flags: HelmFlags, command) => {
      const ctx = contextFor(command, io);
      const renderer = rendererOf(flags.renderer);
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

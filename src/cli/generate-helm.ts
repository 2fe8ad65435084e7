import { UsageError } from '../errors.ts';
import type { CommandModule } from './command-module.ts';
import { contextFor } from './context.ts';
import { reportGenerated } from './report-generated.ts';

const RENDERERS = ['auto', 'kubectl', 'op-gen'] as const;

/** `op-gen generate helm`: dist/chart from config/default. The generator loads only when run. */
export const generateHelmCommand: CommandModule = {
  register(parent, io) {
    parent
      .command('helm')
      .description('generate a Helm chart (dist/chart) from what config/default deploys')
      .option('--image <image>', "the manager image in values.yaml (default: config/manager's)")
      .option('--out <dir>', 'chart folder', 'dist/chart')
      .option(
        '--renderer <name>',
        'auto (kubectl kustomize when kubectl is on PATH), kubectl or op-gen',
        'auto',
      )
      .option('--check', 'write nothing; exit 1 listing the files that would change (for CI)')
      .action(async (opts: { image?: string; out: string; renderer: string; check?: boolean }, command) => {
        const ctx = contextFor(command, io);
        const renderer = RENDERERS.find((r) => r === opts.renderer);
        if (!renderer) throw new UsageError(`--renderer ${opts.renderer}: one of ${RENDERERS.join(', ')}`);
        const { generateHelm } = await import('../generate/helm/index.ts');
        const result = generateHelm({
          cwd: ctx.cwd,
          ...(opts.image ? { image: opts.image } : {}),
          outDir: opts.out,
          renderer,
          check: opts.check === true,
        });
        reportGenerated(ctx, result, {
          check: opts.check === true,
          what: 'chart',
          command: 'op-gen generate helm',
        });
      });
  },
};

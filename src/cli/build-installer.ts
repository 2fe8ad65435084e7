import type { Command } from 'commander';
import { UsageError } from '../errors.ts';
import type { CommandModule } from './command-module.ts';
import { contextFor, type CommandIo } from './context.ts';
import { rendererOf, withRendererFlag } from './renderer-flag.ts';
import { reportGenerated } from './report-generated.ts';

interface BuildInstallerFlags {
  image?: string;
  out: string;
  renderer: string;
  check?: boolean;
}

/** `op-gen build-installer --image IMG`: dist/install.yaml, what `kubectl apply -k config/default` applies. */
export const buildInstallerCommand: CommandModule = {
  register(parent: Command, io: CommandIo): void {
    withRendererFlag(
      parent
        .command('build-installer')
        .description(
          "write dist/install.yaml: every object `kubectl apply -k config/default` applies, with the manager's image set",
        )
        .option('--image <image>', 'the manager image, e.g. registry.example.com/my-operator:0.1.0')
        .option('--out <file>', 'output file', 'dist/install.yaml'),
    )
      .option('--check', 'write nothing; exit 1 when the file would change (for CI)')
      .action(async (flags: BuildInstallerFlags, command: Command) => {
        const ctx = contextFor(command, io);
        if (!flags.image)
          throw new UsageError(
            'build-installer needs --image <image>, e.g. --image example.com/my-operator:0.1.0',
          );
        const renderer = rendererOf(flags.renderer);
        const { buildInstaller } = await import('../installer/index.ts');
        const result = buildInstaller({
          cwd: ctx.cwd,
          image: flags.image,
          out: flags.out,
          renderer,
          check: flags.check === true,
        });
        if (!flags.check)
          ctx.stdout.write(
            `rendered config/default with ${result.renderer === 'kubectl' ? 'kubectl kustomize' : "op-gen's kustomize renderer"}: ${result.objects.length} objects\n`,
          );
        reportGenerated(ctx, result, {
          check: flags.check === true,
          what: 'installer',
          command: `op-gen build-installer --image ${flags.image}`,
        });
      });
  },
};

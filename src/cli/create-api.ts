import type { Command } from 'commander';
import type { CommandModule } from './command-module.ts';
import { contextFor, type CommandContext } from './context.ts';
import { UsageError } from '../errors.ts';
import type { GeneratorContext } from '../generation/contract.ts';
import { AFTER_CREATE_API, type DefaultsGeneratorName } from '../generate/generator-names.ts';
import type { ApiDependent, ApiExample, Generator } from '../scaffold/create-api.ts';
import { runGenerator } from './run-generator.ts';

interface CreateApiFlags {
  group?: string;
  version?: string;
  kind?: string;
  namespaced?: boolean;
  cluster?: boolean;
  controller?: boolean;
  example?: string;
  dependents?: string;
  skipGenerate?: boolean;
}

/**
 * The registry's generators as `create api`/`create webhook` run them: each on the project root with
 * the project's defaults, reporting its files as `op-gen generate <name>` would, all in one context
 * (made when the first runs, after the scaffold is written), so the sources load once.
 */
export function generatorsFor(ctx: CommandContext, names: readonly DefaultsGeneratorName[]): Generator[] {
  let run: Promise<GeneratorContext> | undefined;
  return names.map((name) => ({
    name,
    run: async (projectRoot: string) => {
      run ??= import('../generate/registry.ts').then((r) => r.runContext(names, { cwd: projectRoot }));
      await runGenerator({ ...ctx, cwd: projectRoot }, name, {}, {}, await run);
    },
  }));
}

/** `op-gen create api`: a new kind (types, controller, sample, test) in an op-gen project. */
export const createApiCommand: CommandModule = {
  register(parent, io) {
    const create =
      parent.commands.find((c) => c.name() === 'create') ??
      parent.command('create').description('add a resource to the project');
    create
      .command('api')
      .description('add an API kind with types, a controller, a sample and tests; then run the generators')
      .option('--group <group>', 'API group without the domain (e.g. cache)')
      .option('--version <version>', 'API version: v1, v1alpha1, v2beta3, ...')
      .option('--kind <Kind>', 'kind, in PascalCase (e.g. Memcached)')
      .option('--namespaced', 'namespaced kind (the default)')
      .option('--cluster', 'cluster-scoped kind')
      .option('--controller', 'scaffold a controller (default for the first version of a kind)')
      .option('--no-controller', 'do not scaffold a controller')
      .option(
        '--example <name>',
        'write an example instead of the minimal reconciler: deployment (a controller that keeps a Deployment from spec.size and spec.image)',
      )
      .option(
        '--dependents <kinds>',
        'scaffold a controller declared on op-gen/runtime dependents instead of a reconciler: a comma-separated list of deployment, service, configmap',
      )
      .option('--skip-generate', 'do not run op-gen generate afterwards')
      .action(async (flags: CreateApiFlags, command: Command) => {
        const ctx = contextFor(command, io);
        if (flags.namespaced && flags.cluster) {
          throw new UsageError('--namespaced and --cluster exclude each other: pass one.');
        }
        // The scaffold engine (handlebars) loads only when the command runs.
        const [{ createApi }, { terminalPrompter }] = await Promise.all([
          import('../scaffold/create-api.ts'),
          import('../scaffold/prompt.ts'),
        ]);
        const prompt = terminalPrompter();
        await createApi(
          {
            dir: ctx.cwd,
            ...(flags.group !== undefined ? { group: flags.group } : {}),
            ...(flags.version !== undefined ? { version: flags.version } : {}),
            ...(flags.kind !== undefined ? { kind: flags.kind } : {}),
            ...(flags.namespaced ? { namespaced: true } : flags.cluster ? { namespaced: false } : {}),
            ...(flags.controller !== undefined ? { controller: flags.controller } : {}),
            ...(flags.example !== undefined ? { example: flags.example as ApiExample } : {}),
            ...(flags.dependents !== undefined
              ? { dependents: flags.dependents.split(',').map((d) => d.trim()) as ApiDependent[] }
              : {}),
            ...(flags.skipGenerate ? { skipGenerate: true } : {}),
          },
          {
            stdout: ctx.stdout,
            stderr: ctx.stderr,
            generators: generatorsFor(ctx, AFTER_CREATE_API),
            ...(prompt ? { prompt } : {}),
          },
        );
      });
  },
};

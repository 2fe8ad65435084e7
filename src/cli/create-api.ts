import type { Command } from 'commander';
import type { CommandModule } from './command-module.ts';
import { contextFor, type CommandIo } from './context.ts';
import { UsageError } from '../errors.ts';
import type { Generator } from '../scaffold/create-api.ts';

interface CreateApiFlags {
  group?: string;
  version?: string;
  kind?: string;
  namespaced?: boolean;
  cluster?: boolean;
  controller?: boolean;
  skipGenerate?: boolean;
}

/** The generators `create api` runs afterwards, in this order, when op-gen has them. */
const GENERATORS = ['crd', 'rbac', 'client'];

/**
 * The `generate` subcommands registered in this op-gen: each runs in a fresh program, as
 * `op-gen --cwd <root> generate <name>` would.
 */
export function availableGenerators(
  command: Command,
  io: CommandIo,
  names: readonly string[] = GENERATORS,
): Generator[] {
  let root = command;
  while (root.parent) root = root.parent;
  const registered = new Set(
    root.commands.find((c) => c.name() === 'generate')?.commands.map((c) => c.name()),
  );
  return names
    .filter((name) => registered.has(name))
    .map((name) => ({
      name,
      run: async (projectRoot: string) => {
        const { createProgram } = await import('./program.ts');
        await createProgram(io, []).parseAsync(['--cwd', projectRoot, 'generate', name], { from: 'user' });
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
            ...(flags.skipGenerate ? { skipGenerate: true } : {}),
          },
          {
            stdout: ctx.stdout,
            stderr: ctx.stderr,
            generators: availableGenerators(command, { ...io, cwd: ctx.cwd }),
            ...(prompt ? { prompt } : {}),
          },
        );
      });
  },
};

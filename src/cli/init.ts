import { resolve } from 'node:path';
import type { CommandModule } from './command-module.ts';
import { contextFor } from './context.ts';
import { UsageError } from '../errors.ts';

interface InitFlags {
  domain?: string;
  name?: string;
  repo?: string;
  license?: string;
  owner?: string;
  force?: boolean;
  skipInstall?: boolean;
  opGenPath?: string;
  sharding?: boolean;
  year?: string;
}

/** `op-gen init [dir]`: a new operator project (see docs/init.md). */
export const initCommand: CommandModule = {
  register(parent, io) {
    parent
      .command('init')
      .description('scaffold a new operator project')
      .argument('[dir]', 'project directory (default: the current directory)')
      .option('--domain <domain>', 'API domain; groups become <group>.<domain> (e.g. example.com)')
      .option('--name <name>', 'project name, a DNS-1123 label (default: the directory name)')
      .option('--repo <url>', 'git repository URL, recorded in package.json and the project file')
      .option('--license <license>', 'license header of generated sources: apache2 or none', 'apache2')
      .option('--owner <owner>', 'copyright owner and CSV maintainer')
      .option('--force', 'scaffold into a non-empty directory, overwriting files with the same names')
      .option('--skip-install', 'do not run npm install')
      .option(
        '--op-gen-path <path>',
        'depend on op-gen as file:<path> (an op-gen working tree, or op-gen-<version>.tgz from npm pack)',
      )
      .option(
        '--sharding',
        'active-active replicas: the manager takes --sharding, 3 replicas, sharded controllers',
      )
      .option('--year <year>', 'copyright year of the license header (default: this year)')
      .action(async (dir: string | undefined, flags: InitFlags, command) => {
        const ctx = contextFor(command, io);
        // The scaffold engine (handlebars) loads only when the command runs: every other op-gen run starts faster.
        const [{ initProject }, { terminalPrompter }] = await Promise.all([
          import('../scaffold/init.ts'),
          import('../scaffold/prompt.ts'),
        ]);
        const prompt = terminalPrompter();
        const { year, ...rest } = flags;
        if (year !== undefined && !/^\d{4}$/.test(year))
          throw new UsageError(`invalid --year ${JSON.stringify(year)}: four digits (2026).`);
        await initProject(
          {
            dir: resolve(ctx.cwd, dir ?? '.'),
            ...rest,
            ...(year !== undefined ? { year: Number(year) } : {}),
            ...(flags.opGenPath ? { opGenPath: resolve(ctx.cwd, flags.opGenPath) } : {}),
          },
          { stdout: ctx.stdout, stderr: ctx.stderr, ...(prompt ? { prompt } : {}) },
        );
      });
  },
};

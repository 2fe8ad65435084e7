import { relative } from 'node:path';
import type { Command } from 'commander';
import { generateRbac } from '../generate/rbac/generate-rbac.ts';
import type { CommandModule } from './command-module.ts';
import { contextFor, type CommandIo } from './context.ts';

interface RbacFlags {
  paths: string[];
  infer: boolean;
  allowWildcards?: boolean;
  roleName?: string;
  namespace?: string;
  serviceAccount?: string;
  outputDir?: string;
  check?: boolean;
}

export const generateRbacCommand: CommandModule = {
  register(parent: Command, io: CommandIo): void {
    parent
      .command('rbac')
      .description(
        'generate config/rbac (ClusterRole, bindings, leader election, metrics auth) from @rbac markers and controller builders',
      )
      .option('--paths <dirs...>', 'source folders or files to scan', ['src'])
      .option('--no-infer', 'do not infer rules from .for/.owns/.watches; use only @rbac markers')
      .option('--allow-wildcards', 'accept `*` in verbs, groups, resources and URLs')
      .option(
        '--role-name <name>',
        'name of the manager ClusterRole (default: project file rbac.roleName or manager-role)',
      )
      .option('--namespace <ns>', "the manager's namespace (default: <projectName>-system)")
      .option('--service-account <name>', "the manager's ServiceAccount", 'controller-manager')
      .option('--output-dir <dir>', 'where to write the manifests', 'config/rbac')
      .option('--check', 'write nothing; fail if the files on disk are not up to date')
      .action(function (this: Command) {
        const flags = this.opts<RbacFlags>();
        const ctx = contextFor(this, io);
        const result = generateRbac({
          cwd: ctx.cwd,
          paths: flags.paths,
          infer: flags.infer,
          allowWildcards: flags.allowWildcards ?? false,
          ...(flags.roleName ? { roleName: flags.roleName } : {}),
          ...(flags.namespace ? { namespace: flags.namespace } : {}),
          ...(flags.serviceAccount ? { serviceAccount: flags.serviceAccount } : {}),
          ...(flags.outputDir ? { outputDir: flags.outputDir } : {}),
          check: flags.check ?? false,
        });
        const names = result.changed.map((p) => relative(ctx.cwd, p));
        if (flags.check) ctx.stdout.write('RBAC manifests are up to date.\n');
        else if (names.length === 0) ctx.stdout.write('RBAC manifests are up to date; nothing written.\n');
        else ctx.stdout.write(`wrote ${names.join(', ')}\n`);
      });
  },
};

import { relative } from 'node:path';
import type { Command } from 'commander';
import { OpGenError } from '../errors.ts';
import type { CommandModule } from './command-module.ts';
import { contextFor, type CommandIo } from './context.ts';

interface RbacFlags {
  paths: string[];
  infer: boolean;
  allowWildcards?: boolean;
  roleName?: string;
  namespace?: string;
  serviceAccount: string;
  outputDir: string;
  check?: boolean;
}

/** `op-gen generate rbac`: config/rbac from @rbac markers and controller builders. The generator loads only when run. */
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
        'name of the manager ClusterRole (default: rbac.roleName in op-gen.yaml, else manager-role)',
      )
      .option('--namespace <ns>', "the manager's namespace (default: <projectName>-system)")
      .option('--service-account <name>', "the manager's ServiceAccount", 'controller-manager')
      .option('--output-dir <dir>', 'where to write the manifests', 'config/rbac')
      .option('--check', 'write nothing; exit 1 listing the files that would change (for CI)')
      .action(async (flags: RbacFlags, command: Command) => {
        const ctx = contextFor(command, io);
        const { generateRbac } = await import('../generate/rbac/generate-rbac.ts');
        const result = generateRbac({
          cwd: ctx.cwd,
          paths: flags.paths,
          infer: flags.infer,
          allowWildcards: flags.allowWildcards === true,
          ...(flags.roleName ? { roleName: flags.roleName } : {}),
          ...(flags.namespace ? { namespace: flags.namespace } : {}),
          serviceAccount: flags.serviceAccount,
          outputDir: flags.outputDir,
          check: flags.check === true,
        });
        const rel = (p: string): string => relative(ctx.cwd, p);
        const changed = result.changed.map(rel);
        if (flags.check) {
          if (changed.length > 0) {
            throw new OpGenError(
              `${changed.length} RBAC file(s) out of date:\n${changed.map((f) => `  ${f}`).join('\n')}\nRun \`op-gen generate rbac\` and commit the result.`,
            );
          }
          ctx.stdout.write(`${result.files.length} RBAC file(s) up to date\n`);
          return;
        }
        for (const f of result.files.map((file) => rel(file.path))) {
          ctx.stdout.write(`${changed.includes(f) ? 'wrote    ' : 'unchanged'} ${f}\n`);
        }
      });
  },
};

import type { Command } from 'commander';
import type { CommandModule } from './command-module.ts';
import { contextFor, type CommandIo } from './context.ts';
import { runGenerator, withOutputFlags, type OutputFlags } from './run-generator.ts';

interface RbacFlags extends OutputFlags {
  paths: string[];
  infer: boolean;
  allowWildcards?: boolean;
  roleName?: string;
  namespace?: string;
  serviceAccount?: string;
  out?: string;
  /** The earlier name of --out, still accepted. */
  outputDir?: string;
}

/** `op-gen generate rbac`: config/rbac from @rbac markers and controller builders. The generator loads only when run. */
export const generateRbacCommand: CommandModule = {
  register(parent: Command, io: CommandIo): void {
    withOutputFlags(
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
        .option('--service-account <name>', "the manager's ServiceAccount (default: controller-manager)")
        .option('--out <dir>', 'where to write the manifests (default: config/rbac)')
        .option('--output-dir <dir>', 'the same as --out (its earlier name)'),
    ).action(async (flags: RbacFlags, command: Command) => {
      const outDir = flags.out ?? flags.outputDir;
      await runGenerator(
        contextFor(command, io),
        'rbac',
        {
          paths: flags.paths,
          infer: flags.infer,
          allowWildcards: flags.allowWildcards === true,
          ...(flags.roleName ? { roleName: flags.roleName } : {}),
          ...(flags.namespace ? { namespace: flags.namespace } : {}),
          ...(flags.serviceAccount ? { serviceAccount: flags.serviceAccount } : {}),
          ...(outDir === undefined ? {} : { outDir }),
        },
        flags,
      );
    });
  },
};

import type { Command } from 'commander';
import type { GenerateResult, GeneratorContext } from '../generation/contract.ts';
import type { GeneratorName, GeneratorOptionsByName } from '../generate/generator-names.ts';
import type { CommandContext } from './context.ts';
import { reportGenerated, reportingProblems } from './report-generated.ts';

/** The flags every `generate` subcommand has. */
export interface OutputFlags {
  readonly check?: boolean;
  readonly json?: boolean;
}

/** Adds `--check` and `--json` to a generate command (and to `bundle`). */
export function withOutputFlags(command: Command): Command {
  return command
    .option('--check', 'write nothing; exit 1 listing the files that would change (for CI)')
    .option('--json', 'print the result (files written, unchanged, stale, problems) as JSON on stdout');
}

/** What the report lines call a generator's files. */
const WHAT: Readonly<Record<GeneratorName, string>> = {
  crd: 'CRD',
  rbac: 'RBAC',
  client: 'client',
  types: 'type',
  webhook: 'webhook',
  docs: 'API reference',
  helm: 'chart',
};

/** Reports a registry generator's result as `op-gen generate <name>` does. */
export function reportResult(
  ctx: CommandContext,
  name: GeneratorName,
  result: GenerateResult,
  flags: OutputFlags,
): void {
  reportGenerated(ctx, result, {
    check: flags.check === true,
    json: flags.json === true,
    what: WHAT[name],
    command: `op-gen generate ${name}`,
  });
}

/**
 * Runs a generator from the registry and reports its result: what every `generate` subcommand does
 * after parsing its flags, and what `op-gen generate`, `create api` and `create webhook` do for each
 * of theirs (`run`: the context those share, so the sources load once).
 */
export async function runGenerator<N extends GeneratorName>(
  ctx: CommandContext,
  name: N,
  options: Omit<GeneratorOptionsByName[N], 'cwd' | 'check'>,
  flags: OutputFlags = {},
  run?: GeneratorContext,
): Promise<void> {
  const check = flags.check === true;
  const result = await reportingProblems(
    ctx,
    flags.json ? { generator: name, check } : undefined,
    async () => {
      const { generate } = await import('../generate/registry.ts');
      return generate(name, { ...options, cwd: ctx.cwd, check } as GeneratorOptionsByName[N], run);
    },
  );
  reportResult(ctx, name, result, flags);
}

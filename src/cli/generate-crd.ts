import { InvalidArgumentError } from './commander.ts';
import type { CommandModule } from './command-module.ts';
import { contextFor } from './context.ts';
import { withOutputFlags, type OutputFlags } from './run-generator.ts';
import { reportGenerated, reportingProblems } from './report-generated.ts';

function wholeNumber(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('expected a whole number >= 0');
  return n;
}

function descriptionLimit(value: string): number | 'auto' {
  if (value === 'auto') return 'auto';
  const n = Number(value);
  if (value.trim() === '' || !Number.isInteger(n) || n < 0)
    throw new InvalidArgumentError('expected a whole number >= 0 or auto');
  return n;
}

interface CrdFlags extends OutputFlags {
  apiDir?: string;
  out?: string;
  maxDescLen?: number;
  maxDescriptionLength?: number | 'auto';
  generateEmbeddedObjectMeta?: boolean;
}

/**
 * `op-gen generate crd`: CRDs from the TypeScript API types. The generator loads only when run. It runs
 * the generator contract through the library's `generateCrds` (not the registry's untyped result) to
 * print the size of each CRD and the size-budget warnings.
 */
export const generateCrdCommand: CommandModule = {
  register(parent, io) {
    withOutputFlags(
      parent
        .command('crd')
        .description('generate CustomResourceDefinitions from the API types (src/api/<group>/<version>/)')
        .option('--api-dir <dir>', 'API source folder (default: apiDir from op-gen.yaml, else src/api)')
        .option('--out <dir>', 'output folder (default: config/crd/bases)'),
    )
      .option(
        '--max-description-length <n|auto>',
        'cut descriptions longer than n characters (0 drops them); auto: trim only CRDs over 256 KiB, embedded Kubernetes types first',
        descriptionLimit,
      )
      .option('--max-desc-len <n>', "same as --max-description-length n (controller-gen's name)", wholeNumber)
      .option(
        '--generate-embedded-object-meta',
        "embedded ObjectMeta (templates' metadata) gets name, namespace, labels, annotations and finalizers, as controller-gen's crd:generateEmbeddedObjectMeta=true (default: crd.generateEmbeddedObjectMeta in op-gen.yaml)",
      )
      .action(async (flags: CrdFlags, command) => {
        // V8's flags for the run are set by bin/op-gen.js, for every command alike (see there).
        const ctx = contextFor(command, io);
        const check = flags.check === true;
        const json = flags.json === true;
        const maxDescLen = flags.maxDescriptionLength ?? flags.maxDescLen;
        const { generateCrds, formatBytes } = await import('../generate/crd/index.ts');
        const result = await reportingProblems(ctx, json ? { generator: 'crd', check } : undefined, () =>
          generateCrds({
            cwd: ctx.cwd,
            check,
            ...(flags.apiDir === undefined ? {} : { apiDir: flags.apiDir }),
            ...(flags.out === undefined ? {} : { outDir: flags.out }),
            ...(maxDescLen === undefined ? {} : { maxDescLen }),
            ...(flags.generateEmbeddedObjectMeta === true ? { generateEmbeddedObjectMeta: true } : {}),
          }),
        );
        for (const w of result.warnings) ctx.stderr.write(`op-gen: warning: ${w}\n`);
        reportGenerated(
          ctx,
          result,
          { check, json, what: 'CRD', command: 'op-gen generate crd' },
          { sizes: result.sizes, warnings: result.warnings },
        );
        if (!check && !json) {
          result.sizes.forEach((size, i) => {
            const trimmed = size.trimmed ? ` (${size.trimmed})` : '';
            ctx.stdout.write(
              `size      ${result.files[i] ?? size.name} ${formatBytes(size.bytes)}${trimmed}\n`,
            );
          });
        }
      });
  },
};

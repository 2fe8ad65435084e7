import { setFlagsFromString } from 'node:v8';
import { InvalidArgumentError } from 'commander';
import type { CommandModule } from './command-module.ts';
import { contextFor } from './context.ts';
import { runGenerator, withOutputFlags, type OutputFlags } from './run-generator.ts';

function wholeNumber(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('expected a whole number >= 0');
  return n;
}

interface CrdFlags extends OutputFlags {
  apiDir?: string;
  out?: string;
  maxDescLen?: number;
}

/** `op-gen generate crd`: CRDs from the TypeScript API types. The generator loads only when run. */
export const generateCrdCommand: CommandModule = {
  register(parent, io) {
    withOutputFlags(
      parent
        .command('crd')
        .description('generate CustomResourceDefinitions from the API types (src/api/<group>/<version>/)')
        .option('--api-dir <dir>', 'API source folder (default: apiDir from op-gen.yaml, else src/api)')
        .option('--out <dir>', 'output folder (default: config/crd/bases)'),
    )
      .option('--max-desc-len <n>', 'cut descriptions longer than n characters (0 drops them)', wholeNumber)
      .action(async (flags: CrdFlags, command) => {
        // A one-shot run allocates in bursts (parse, walk, YAML); letting V8 grow the young generation
        // doubles the peak RSS for no speed gain here (measured by bench/crd.ts: ~150 vs ~200 MB).
        setFlagsFromString('--semi-space-growth-factor=1');
        // GC helper threads compete with the walk on a 2-core machine: one thread was 5-8% faster here
        // (0.75 vs 0.79-0.82 s median, same RSS).
        setFlagsFromString('--single-threaded-gc');
        await runGenerator(
          contextFor(command, io),
          'crd',
          {
            ...(flags.apiDir === undefined ? {} : { apiDir: flags.apiDir }),
            ...(flags.out === undefined ? {} : { outDir: flags.out }),
            ...(flags.maxDescLen === undefined ? {} : { maxDescLen: flags.maxDescLen }),
          },
          flags,
        );
      });
  },
};

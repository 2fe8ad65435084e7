import { OpGenError } from '../errors.ts';
import type { ProjectResource } from '../project/project-file.ts';
import type { ScaffoldIo } from './init.ts';

/** A generator `create api` / `create webhook` runs afterwards (`op-gen generate <name>` in `root`). */
export interface Generator {
  readonly name: string;
  run(root: string): Promise<void>;
}

/** The I/O of a scaffold command that runs generators afterwards (`create api`, `create webhook`). */
export interface GeneratingIo extends ScaffoldIo {
  /** The generators to run afterwards, in order (none: nothing is generated). */
  readonly generators?: readonly Generator[];
}

/** What `create api` / `create webhook` did. */
export interface ScaffoldResult {
  readonly resource: ProjectResource;
  /** Files created or changed, relative to the project root, sorted. */
  readonly files: readonly string[];
  /** The generators that ran. */
  readonly generated: readonly string[];
}

/**
 * Runs the generators `create api` / `create webhook` call afterwards, in order. A failure says what is
 * already written (`the Memcached API`, `the Memcached webhook`) and what to do; returns the names run.
 */
export async function runGeneratorsAfter(
  root: string,
  written: string,
  io: { readonly stdout: { write(s: string): unknown }; readonly generators?: readonly Generator[] },
): Promise<string[]> {
  const generated: string[] = [];
  for (const generator of io.generators ?? []) {
    io.stdout.write(`Running op-gen generate ${generator.name}\n`);
    try {
      await generator.run(root);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      throw new OpGenError(
        `${written} is written, but \`op-gen generate ${generator.name}\` failed: ${message}\n` +
          'Fix the cause, then run `npm run generate`.',
        { cause: err },
      );
    }
    generated.push(generator.name);
  }
  return generated;
}

import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type * as Commander from 'commander';

/**
 * The one-file copy of the `commander` package `npm run build` writes (scripts/vendor.mjs), the
 * same for src/ and dist/ modules: <package>/dist/vendor/commander.cjs.
 */
export const BUNDLED_COMMANDER = fileURLToPath(
  new URL(
    import.meta.url.endsWith('.ts') ? '../../dist/vendor/commander.cjs' : '../vendor/commander.cjs',
    import.meta.url,
  ),
);

/**
 * The `commander` package, as the bundled CommonJS copy when it is built (the package itself in a
 * checkout not yet built). Loaded as ES modules, commander made Node build the ES facades of the
 * built-in modules it imports, which read every export, lazy ones included (node:util's loaded
 * worker_threads, node:fs's its promises API and readline), and it loaded node:child_process (net,
 * dgram) for executable subcommands, which op-gen does not define: ~7 MB of resident memory in every
 * command. The copy takes them with `require` and child_process on first use. Every module takes
 * commander's values from here (only types are imported from 'commander'), so `instanceof` sees
 * one set of classes.
 */
function load(): typeof Commander {
  const require = createRequire(import.meta.url);
  return (
    existsSync(BUNDLED_COMMANDER) ? require(BUNDLED_COMMANDER) : require('commander')
  ) as typeof Commander;
}

const commander = load();
export const Command = commander.Command;
export const CommanderError = commander.CommanderError;
export const InvalidArgumentError = commander.InvalidArgumentError;
export type Command = Commander.Command;
export type CommanderError = Commander.CommanderError;
export type InvalidArgumentError = Commander.InvalidArgumentError;

import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import * as Commander from 'commander';
import {
  BUNDLED_COMMANDER,
  Command,
  CommanderError,
  InvalidArgumentError,
} from '../../../src/cli/commander.ts';

const SRC = new URL('../../../src/', import.meta.url).pathname;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

describe('commander', () => {
  it('is the bundled copy once built, with the package exports', (t) => {
    if (!existsSync(BUNDLED_COMMANDER))
      return t.skip('dist/vendor/commander.cjs is not built (npm run build)');
    const bundled = createRequire(import.meta.url)(BUNDLED_COMMANDER) as typeof Commander;
    assert.equal(Command, bundled.Command, 'the bundle is what op-gen loads');
    assert.equal(CommanderError, bundled.CommanderError);
    assert.equal(InvalidArgumentError, bundled.InvalidArgumentError);
    assert.notEqual(Command, Commander.Command);
    assert.deepEqual(Object.keys(bundled).sort(), Object.keys(Commander).sort(), 'the same exports');
  });

  it('takes node:child_process only when a subcommand is run as an executable', (t) => {
    if (!existsSync(BUNDLED_COMMANDER))
      return t.skip('dist/vendor/commander.cjs is not built (npm run build)');
    const text = readFileSync(BUNDLED_COMMANDER, 'utf8');
    assert.doesNotMatch(text, /require\("node:child_process"\)/);
    assert.match(text, /process\.getBuiltinModule\("node:child_process"\)/);
  });

  it('is the only way op-gen loads the package: modules import only types from commander', () => {
    const offenders = sources(SRC).filter((file) =>
      /^import\s+(?!type\b)[^;]*from\s+'commander';/m.test(readFileSync(file, 'utf8')),
    );
    assert.deepEqual(offenders, [], 'import values through src/cli/commander.ts');
  });
});

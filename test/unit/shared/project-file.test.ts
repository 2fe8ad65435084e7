import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { main } from '../../../src/cli/main.ts';
import { readProjectFile } from '../../../src/shared/project-file.ts';
import { sink } from '../../helpers/io.ts';

/** A broken op-gen.yaml is one clear line naming the file and what to do, exit 1, nothing written. */
describe('an invalid op-gen.yaml', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'op-gen-project-file-'));
    mkdirSync(join(dir, 'src', 'api'), { recursive: true });
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const cases: [string, string, RegExp][] = [
    [
      'not YAML',
      'domain: example.com\nprojectName: [unclosed\n',
      /op-gen\.yaml: not valid YAML \(.*\)\. Fix the file or re-create it with `op-gen init`\./,
    ],
    ['no domain', 'projectName: demo\n', /op-gen\.yaml: missing `domain` or `projectName`\. Fix the file/],
    ['no projectName', 'domain: example.com\n', /op-gen\.yaml: missing `domain` or `projectName`/],
    ['a list, not a mapping', '- domain: example.com\n', /op-gen\.yaml: missing `domain` or `projectName`/],
    ['empty', '', /op-gen\.yaml: missing `domain` or `projectName`/],
  ];
  for (const [name, text, message] of cases) {
    it(`${name}: readProjectFile names the file and the fix`, () => {
      writeFileSync(join(dir, 'op-gen.yaml'), text);
      assert.throws(
        () => readProjectFile(dir),
        (err: Error) => {
          assert.equal(err.name, 'OpGenError');
          assert.match(err.message, message);
          assert.ok(err.message.startsWith(join(dir, 'op-gen.yaml')), err.message);
          assert.doesNotMatch(err.message, /\n/, 'one line');
          return true;
        },
      );
    });
  }

  for (const argv of [
    ['create', 'api', '--group', 'cache', '--version', 'v1', '--kind', 'Memcached'],
    ['generate', 'rbac'],
    ['bundle', '--version', '0.1.0'],
  ]) {
    it(`op-gen ${argv.slice(0, 2).join(' ')}: exit 1, one line, nothing written`, async () => {
      writeFileSync(join(dir, 'op-gen.yaml'), 'domain: example.com\n');
      const before = readdirSync(dir, { recursive: true }).map(String).sort();
      const err = sink();
      const code = await main([...argv, '--cwd', dir], { stdout: sink().stream, stderr: err.stream });
      assert.equal(code, 1, err.text());
      assert.match(err.text(), /^op-gen: .*op-gen\.yaml: missing `domain` or `projectName`.*\n$/);
      assert.doesNotMatch(err.text(), /internal error|\n\s+at /);
      assert.deepEqual(readdirSync(dir, { recursive: true }).map(String).sort(), before);
      assert.equal(existsSync(join(dir, 'config')), false);
    });
  }
});

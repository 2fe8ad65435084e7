import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { main } from '../../../src/cli/main.ts';
import { readProjectFile } from '../../../src/project/project-file.ts';
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
    [
      'no domain',
      'projectName: demo\n',
      /op-gen\.yaml: domain: missing \(must be a DNS-1123 subdomain \(example\.com\)\)\. Fix the file/,
    ],
    ['no projectName', 'domain: example.com\n', /op-gen\.yaml: projectName: missing/],
    [
      'a list, not a mapping',
      '- domain: example.com\n',
      /op-gen\.yaml: must be a mapping \(domain, projectName, resources, \.\.\.\), found a list/,
    ],
    ['empty', '', /op-gen\.yaml: must be a mapping .*, found nothing/],
    // Each of these was read without complaint: a crash in a generator, or a wrong artifact with exit 0.
    [
      'apiDir of the wrong type (was an internal error in every generator)',
      'domain: example.com\nprojectName: demo\napiDir: true\n',
      /op-gen\.yaml: apiDir: must be a non-empty string, found boolean true\./,
    ],
    [
      'a mapping as the domain (was the API group "cache.[object Object]")',
      'domain: {a: 1}\nprojectName: demo\n',
      /op-gen\.yaml: domain: must be a DNS-1123 subdomain \(example\.com\), found a mapping/,
    ],
    [
      'a misspelt key (was a project without resources)',
      'domain: example.com\nprojectName: demo\nresource: []\n',
      /op-gen\.yaml: resource: unknown field \(known: version, domain, projectName, repo, apiDir, resources, rbac, crd, sharding, scaffold\)/,
    ],
    [
      'a scaffold record whose commands are not lists of arguments (op-gen upgrade would replay them)',
      'domain: example.com\nprojectName: demo\nscaffold:\n  opGenVersion: 0.1.0\n  commands:\n    - init --domain example.com\n',
      /op-gen\.yaml: scaffold\.commands: must be a list of commands, each a list of its arguments/,
    ],
    [
      'a scaffold record without its version',
      'domain: example.com\nprojectName: demo\nscaffold:\n  commands: [[init]]\n',
      /op-gen\.yaml: scaffold\.opGenVersion: missing/,
    ],
    [
      'a resource field of the wrong type',
      'domain: example.com\nprojectName: demo\nresources:\n  - {group: cache, version: v1, kind: Memcached, plural: memcacheds, namespaced: "yes", controller: true}\n',
      /op-gen\.yaml: resources\[0\]\.namespaced: must be true or false, found string "yes"/,
    ],
    [
      'a webhook spoke of the wrong type',
      'domain: example.com\nprojectName: demo\nresources:\n  - {group: cache, version: v1, kind: Memcached, plural: memcacheds, namespaced: true, controller: true, webhooks: {conversion: true, spokes: v2}}\n',
      /op-gen\.yaml: resources\[0\]\.webhooks\.spokes: must be a list of versions \(v1, v1alpha1\), found string "v2"/,
    ],
    // Names flow into generated code and file names: the rules create api applies to them hold here too.
    [
      'a kind that is no PascalCase name (was written into generated TypeScript)',
      "domain: example.com\nprojectName: demo\nresources:\n  - {group: cache, version: v1, kind: 'Mem\"cached', plural: memcacheds, namespaced: true, controller: true}\n",
      /op-gen\.yaml: resources\[0\]\.kind: must be a PascalCase kind \(Memcached\), found string "Mem\\"cached"/,
    ],
    [
      'a version that is no Kubernetes version',
      'domain: example.com\nprojectName: demo\nresources:\n  - {group: cache, version: one, kind: Memcached, plural: memcacheds, namespaced: true, controller: true}\n',
      /op-gen\.yaml: resources\[0\]\.version: must be v<N>, v<N>alpha<M> or v<N>beta<M> \(v1, v1alpha1\), found string "one"/,
    ],
    [
      'a domain that is no DNS name',
      'domain: Example_com\nprojectName: demo\n',
      /op-gen\.yaml: domain: must be a DNS-1123 subdomain \(example\.com\), found string "Example_com"/,
    ],
    [
      'a resource twice',
      'domain: example.com\nprojectName: demo\nresources:\n  - {group: cache, version: v1, kind: Memcached, plural: memcacheds, namespaced: true, controller: true}\n  - {group: cache, version: v1, kind: Memcached, plural: memcacheds, namespaced: true, controller: false}\n',
      /op-gen\.yaml: resources\[1\]: the same group, version and kind as resources\[0\] \(cache\/v1\/Memcached\)/,
    ],
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

  it('every problem of the file in one run, the hint once', () => {
    writeFileSync(
      join(dir, 'op-gen.yaml'),
      'domain: 5\nprojectName: demo\nsharding: "no"\nresources:\n  - kind: Memcached\n',
    );
    assert.throws(
      () => readProjectFile(dir),
      (err: Error) => {
        const lines = err.message.split('\n');
        assert.deepEqual(
          lines.map((l) => l.replace(`${join(dir, 'op-gen.yaml')}: `, '').replace(/\. Fix the file.*/, '')),
          [
            'domain: must be a DNS-1123 subdomain (example.com), found number 5',
            'sharding: must be true or false, found string "no"',
            'resources[0].group: missing (must be a DNS-1123 label (cache))',
            'resources[0].version: missing (must be v<N>, v<N>alpha<M> or v<N>beta<M> (v1, v1alpha1))',
            'resources[0].plural: missing (must be a DNS-1123 label (memcacheds))',
            'resources[0].namespaced: missing (must be true or false)',
            'resources[0].controller: missing (must be true or false)',
            '7 problems',
          ],
        );
        assert.equal(lines.filter((l) => l.includes('Fix the file')).length, 1);
        return true;
      },
    );
  });

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
      assert.match(err.text(), /^op-gen: .*op-gen\.yaml: projectName: missing .*\n$/);
      assert.doesNotMatch(err.text(), /internal error|\n\s+at /);
      assert.deepEqual(readdirSync(dir, { recursive: true }).map(String).sort(), before);
      assert.equal(existsSync(join(dir, 'config')), false);
    });
  }
});

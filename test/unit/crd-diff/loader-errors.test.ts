import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { crdsAtRef, crdsFromPath, crdsFromYaml } from '../../../src/crd-diff/load.ts';
import { OpGenError } from '../../../src/errors.ts';

/**
 * crd diff's loader refuses what it cannot compare, each with one message naming the file (or the
 * ref) and what is wrong: a missing path, YAML that does not parse, a CRD without the fields the diff
 * reads, a CRD defined twice, and for --base a ref that looks like an option, a folder outside the
 * repository, a folder that is not in a repository.
 */
const crd = (name: string, body = ''): string => `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ${name}
${body}`;
const SPEC = `spec:
  group: x.example.com
  names: { kind: Widget, plural: widgets }
  versions: [{ name: v1 }]
`;

/** The error `fn` throws: an OpGenError with this message and exit code. */
function refuses(fn: () => unknown, message: string | RegExp, exitCode = 1): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof OpGenError, String(err));
    if (typeof message === 'string') assert.equal(err.message, message);
    else assert.match(err.message, message);
    assert.equal(err.exitCode, exitCode);
    return true;
  });
}

describe('crd diff: the loader refuses what it cannot compare', () => {
  const dir = mkdtempSync(join(tmpdir(), 'op-gen-crd-diff-load-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('reads CRDs and Lists of them, skipping other kinds', () => {
    const text = `${crd('widgets.x.example.com', SPEC)}---\nkind: ConfigMap\n---\nkind: List\nitems:\n  - ${crd(
      'gadgets.x.example.com',
      SPEC,
    )
      .trimEnd()
      .split('\n')
      .join('\n    ')}\n`;
    assert.deepEqual(
      crdsFromYaml(text, 'a.yaml').map((c) => c.metadata.name),
      ['widgets.x.example.com', 'gadgets.x.example.com'],
    );
  });

  it('a path that does not exist', () => {
    refuses(() => crdsFromPath(dir, 'nowhere'), 'nowhere: no such file or folder');
  });

  it('YAML that does not parse: file and line', () => {
    refuses(() => crdsFromYaml('a: 1\nb: [\n', 'crds/x.yaml'), /^crds\/x\.yaml:\d+: not valid YAML \(/);
  });

  it('a CRD without a field the diff reads', () => {
    const cases: [string, string][] = [
      [
        'apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {}\n',
        '(no metadata.name): metadata.name is missing',
      ],
      [crd('w.x'), 'w.x: spec is missing'],
      [crd('w.x', 'spec:\n  names: { kind: W }\n  versions: []\n'), 'w.x: spec.group is missing'],
      [crd('w.x', 'spec:\n  group: x\n  names: {}\n  versions: []\n'), 'w.x: spec.names.kind is missing'],
      [crd('w.x', 'spec:\n  group: x\n  names: { kind: W }\n'), 'w.x: spec.versions is missing'],
      [
        crd('w.x', 'spec:\n  group: x\n  names: { kind: W }\n  versions: [{ served: true }]\n'),
        'w.x: a version has no name',
      ],
    ];
    for (const [text, what] of cases)
      refuses(() => crdsFromYaml(text, 'c.yaml'), `c.yaml: CustomResourceDefinition ${what}`);
  });

  it('a CRD defined in two files of a folder', () => {
    mkdirSync(join(dir, 'twice', 'sub'), { recursive: true });
    writeFileSync(join(dir, 'twice', 'a.yaml'), crd('widgets.x.example.com', SPEC));
    writeFileSync(join(dir, 'twice', 'sub', 'b.yml'), crd('widgets.x.example.com', SPEC));
    writeFileSync(join(dir, 'twice', 'notes.txt'), 'not read');
    refuses(
      () => crdsFromPath(dir, 'twice'),
      'twice: CustomResourceDefinition widgets.x.example.com is defined more than once',
    );
  });

  describe('--base', () => {
    const repo = join(dir, 'repo');
    mkdirSync(join(repo, 'crds'), { recursive: true });
    const git = (...args: string[]): string =>
      execFileSync('git', args, {
        cwd: repo,
        encoding: 'utf8',
        env: {
          ...process.env,
          GIT_AUTHOR_NAME: 't',
          GIT_AUTHOR_EMAIL: 't@x',
          GIT_COMMITTER_NAME: 't',
          GIT_COMMITTER_EMAIL: 't@x',
        },
      });
    git('init', '-q', '-b', 'main');
    writeFileSync(join(repo, 'crds', 'w.yaml'), crd('widgets.x.example.com', SPEC));
    git('add', '.');
    git('commit', '-qm', 'crds');

    it('reads the CRDs of a ref', () => {
      assert.deepEqual(
        crdsAtRef(repo, 'HEAD', 'crds').map((c) => c.metadata.name),
        ['widgets.x.example.com'],
      );
    });

    it('a ref that starts with `-` is a usage error (exit 2), never handed to git as an option', () => {
      for (const ref of ['-x', '--output=/tmp/op-gen-x', '--all'])
        refuses(() => crdsAtRef(repo, ref, 'crds'), `--base ${ref}: not a git ref`, 2);
    });

    it('a folder outside the repository', () => {
      refuses(
        () => crdsAtRef(repo, 'HEAD', '../elsewhere'),
        `../elsewhere: outside the git repository of ${repo}`,
      );
    });

    it('a folder that is not in a git repository', () => {
      const plain = mkdtempSync(join(tmpdir(), 'op-gen-not-git-'));
      try {
        refuses(() => crdsAtRef(plain, 'HEAD', '.'), `--base HEAD: ${plain} is not in a git repository`);
      } finally {
        rmSync(plain, { recursive: true, force: true });
      }
    });
  });
});

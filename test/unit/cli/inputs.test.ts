import assert from 'node:assert/strict';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { opGen, sampleProject } from '../bundle/project.ts';

const BIN = new URL('../../../bin/op-gen.js', import.meta.url).pathname;

/**
 * Issue 14 items 6, 8 and 9 through bin/op-gen.js (run `npm run build` first): one pluralizer for every
 * command, environment errors as one line with exit 1, and inputs checked before anything is written.
 */

/** Every file under `dir` with its content: proves a failed command wrote nothing. */
function tree(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    if (path.includes(`${join(dir, 'node_modules')}`)) continue;
    out.set(path, readFileSync(path, 'utf8'));
  }
  return out;
}

/** Exit 1, exactly one line on stderr matching `message`, and the project unchanged. */
function failsWithOneLine(project: string, args: string[], message: RegExp, code = 1): void {
  const before = tree(project);
  const r = opGen(project, ...args);
  assert.equal(r.status, code, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
  const lines = r.stderr.trimEnd().split('\n');
  assert.equal(lines.length, 1, `one line, got:\n${r.stderr}`);
  assert.match(lines[0]!, message);
  assert.doesNotMatch(r.stderr, /internal error|\n\s+at /);
  assert.deepEqual(tree(project), before, 'nothing written');
}

describe('create api and generate crd name a kind the same way (item 6)', () => {
  it('Person is people in op-gen.yaml, @rbac, the CRD and its file name', () => {
    const project = sampleProject();
    const r = opGen(project, 'create', 'api', '--group', 'crew', '--version', 'v1', '--kind', 'Person');
    assert.equal(r.status, 0, r.stderr);
    assert.match(readFileSync(join(project, 'op-gen.yaml'), 'utf8'), /kind: Person\n\s+plural: people/);
    const crd = readFileSync(join(project, 'config/crd/bases/crew.example.com_people.yaml'), 'utf8');
    assert.match(crd, /plural: people/);
    assert.match(crd, /name: people\.crew\.example\.com/);
    assert.match(
      readFileSync(join(project, 'src/controllers/person.controller.ts'), 'utf8'),
      /resources=people /,
    );
    const role = readFileSync(join(project, 'config/rbac/role.yaml'), 'utf8');
    assert.match(role, /- people\n/);
    assert.doesNotMatch(role, /persons/);
  });
});

describe('environment errors are one line, exit 1 (item 8)', () => {
  const project = sampleProject();
  writeFileSync(join(project, 'NOTES'), 'a file, not a directory\n');

  it('an output path through a file (ENOTDIR) for generate crd, generate client and bundle', () => {
    failsWithOneLine(
      project,
      ['generate', 'crd', '--out', 'NOTES/x'],
      /^op-gen: cannot write NOTES\/x: NOTES is not a directory$/,
    );
    failsWithOneLine(
      project,
      ['generate', 'client', '--out', 'NOTES/x'],
      /^op-gen: cannot write NOTES\/x\/cache\/v1alpha1: NOTES is not a directory$/,
    );
    failsWithOneLine(
      project,
      ['bundle', '--version', '0.1.0', '--out', 'NOTES'],
      /^op-gen: cannot write NOTES\/.*: NOTES is not a directory$/,
    );
  });

  it('a KUBECONFIG naming no file, and no kubeconfig at all, for generate types --from-cluster', () => {
    const withEnv = (vars: Record<string, string | undefined>, ...args: string[]) => {
      const env: Record<string, string | undefined> = { ...process.env, CI: 'true', ...vars };
      const r = spawnSync(process.execPath, [BIN, ...args], { cwd: project, encoding: 'utf8', env });
      return { status: r.status, stderr: r.stderr };
    };
    const missing = withEnv({ KUBECONFIG: '/nonexistent' }, 'generate', 'types', '--from-cluster', 'a.b.c');
    assert.equal(missing.status, 1);
    assert.equal(
      missing.stderr,
      'op-gen: no kubeconfig found: KUBECONFIG=/nonexistent names no file that exists; point KUBECONFIG at a kubeconfig file or unset it to use ~/.kube/config\n',
    );
    const none = withEnv(
      { KUBECONFIG: undefined, HOME: join(project, 'no-home') },
      'generate',
      'types',
      '--from-cluster',
      'a.b.c',
    );
    assert.equal(none.status, 1);
    assert.equal(none.stderr, 'op-gen: no kubeconfig found: set KUBECONFIG or create ~/.kube/config\n');
  });
});

describe('inputs are validated before anything is written (item 9)', () => {
  const project = sampleProject();

  it('bundle --created-at must be RFC 3339 and --image an image reference', () => {
    failsWithOneLine(
      project,
      ['bundle', '--version', '0.1.0', '--created-at', 'yesterday'],
      /^op-gen: --created-at yesterday: not an RFC 3339 time \(e\.g\. 2026-01-02T15:04:05Z\)$/,
    );
    failsWithOneLine(
      project,
      ['bundle', '--version', '0.1.0', '--created-at', '2026-02-30T00:00:00Z'],
      /not an RFC 3339 time/,
    );
    failsWithOneLine(
      project,
      ['bundle', '--version', '0.1.0', '--image', 'not an image!!'],
      /^op-gen: --image not an image!!: must be an image reference/,
    );
    failsWithOneLine(
      project,
      ['bundle', '--version', '0.1.0', '--image', 'Quay.io/Acme/Op:v1'],
      /must be an image reference/,
    );
  });

  it('generate rbac --namespace must be a DNS-1123 label', () => {
    failsWithOneLine(
      project,
      ['generate', 'rbac', '--namespace', 'Bad_NS'],
      /^op-gen: --namespace Bad_NS: a namespace is a DNS-1123 label: a lowercase RFC 1123 label must consist of/,
    );
  });

  it('create api --group is the short group: the domain comes from op-gen.yaml', () => {
    failsWithOneLine(
      project,
      ['create', 'api', '--group', 'cache.example.com', '--version', 'v1', '--kind', 'Cache'],
      /the group is the short name: the domain \(example\.com\) comes from op-gen\.yaml .* cache\.example\.com\.example\.com \(for example cache\)/,
    );
  });

  it('create api without --kind gives a PascalCase example', () => {
    failsWithOneLine(
      project,
      ['create', 'api', '--group', 'cache', '--version', 'v1'],
      /^op-gen: missing --kind: kind, in PascalCase \(e\.g\. Memcached\)\. Pass --kind <value>\.$/,
      2,
    );
  });

  it('init in a directory whose name is no project name, without --name', () => {
    const r = opGen(join(project, '..'), 'init', 'My_Dir', '--domain', 'example.com', '--skip-install');
    assert.equal(r.status, 2);
    assert.match(
      r.stderr,
      /^op-gen: the directory name "My_Dir" is not a valid project name: .*Pass --name <name> \(for example --name my-dir\)\.\n$/,
    );
  });

  it('op-gen help generate crd prints the help of generate crd', () => {
    const r = opGen(project, 'help', 'generate', 'crd');
    assert.equal(r.status, 0);
    assert.match(r.stdout, /^Usage: op-gen generate crd \[options\]/);
  });

  it("a subcommand's usage error points at that subcommand's --help", () => {
    const r = opGen(project, 'generate', 'crd', '--bogus');
    assert.equal(r.status, 2);
    assert.match(r.stderr, /unknown option '--bogus'\n\(run op-gen generate crd --help for usage\)/);
    const bundle = opGen(project, 'bundle', 'validate', '--bogus');
    assert.match(bundle.stderr, /\(run op-gen bundle validate --help for usage\)/);
  });
});

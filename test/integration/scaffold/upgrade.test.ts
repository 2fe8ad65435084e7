import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { tempDir } from '../../unit/scaffold/helpers.ts';

/**
 * `op-gen upgrade` from an older op-gen to this checkout, no cluster and no network. The older op-gen
 * is built by the test from this checkout (dist/, bin/, templates/, package.json copied, node_modules
 * linked) with its version set to 0.0.1-old and template differences, so a fresh clone reproduces
 * it without tags or history: the old scaffold has a comment line at the top of the controller that
 * the newer one dropped (the user edits that line: the conflict), a line in the Dockerfile the newer
 * one changed (untouched by the user: it arrives), no `.dockerignore` template (so the newer
 * scaffold's `.dockerignore` is added), a file the newer scaffold dropped (unchanged by the user:
 * deleted) and one it dropped that the user changed (kept). This checkout is not modified.
 */

const OP_GEN_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const CLI = join(OP_GEN_ROOT, 'bin', 'op-gen.js');
const CONTROLLER_TEMPLATE = 'templates/create-api/controller/src/controllers/{{kindFile}}.controller.ts.hbs';
const OLD_LINE = '// Scaffolded by op-gen 0.0.1-old.';

function cli(cwd: string, entry: string, ...args: string[]): { code: number; out: string; err: string } {
  const r = spawnSync(process.execPath, [entry, ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, CI: '1' },
  });
  return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
}

describe('op-gen upgrade: an older op-gen scaffold, edited by the user, upgraded to this checkout', () => {
  const tmp = tempDir('op-gen-upgrade-test-');
  const old = join(tmp.dir, 'op-gen-old');
  const project = join(tmp.dir, 'shop-operator');
  const controller = join(project, 'src/controllers/widget.controller.ts');
  let upgrade: { code: number; out: string; err: string };
  let dryRun: { code: number; out: string; err: string };
  let beforeDryRun: string;
  let afterDryRun: string;
  let droppedAfterDryRun: boolean;

  after(tmp.cleanup);

  before(() => {
    // The older op-gen: this checkout's build with another version and three template differences.
    mkdirSync(old);
    for (const entry of ['dist', 'bin', 'templates'])
      cpSync(join(OP_GEN_ROOT, entry), join(old, entry), { recursive: true });
    symlinkSync(join(OP_GEN_ROOT, 'node_modules'), join(old, 'node_modules'));
    const pkg = JSON.parse(readFileSync(join(OP_GEN_ROOT, 'package.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    writeFileSync(join(old, 'package.json'), JSON.stringify({ ...pkg, version: '0.0.1-old' }, null, 2));
    const controllerTemplate = join(old, CONTROLLER_TEMPLATE);
    writeFileSync(controllerTemplate, `${OLD_LINE}\n${readFileSync(controllerTemplate, 'utf8')}`);
    const dockerfile = join(old, 'templates/init/Dockerfile.hbs');
    writeFileSync(dockerfile, `${readFileSync(dockerfile, 'utf8')}# old scaffold line\n`);
    writeFileSync(
      join(old, 'templates/init/hack/upgrade-dropped.txt.hbs'),
      'dropped by the newer scaffold\n',
    );
    writeFileSync(join(old, 'templates/init/hack/upgrade-dropped-edited.txt.hbs'), 'dropped, but edited\n');
    rmSync(join(old, 'templates/init/_dockerignore.hbs'));

    // Made with the older op-gen.
    const oldCli = join(old, 'bin', 'op-gen.js');
    let r = cli(tmp.dir, oldCli, 'init', 'shop-operator', '--domain', 'example.com', '--skip-install');
    assert.equal(r.code, 0, r.err);
    r = cli(
      project,
      oldCli,
      'create',
      'api',
      '--group',
      'shop',
      '--version',
      'v1',
      '--kind',
      'Widget',
      '--skip-generate',
    );
    assert.equal(r.code, 0, r.err);
    assert.ok(readFileSync(controller, 'utf8').startsWith(OLD_LINE));

    // The user's edits: the old scaffold's first controller line (the newer scaffold dropped it: a
    // conflict), a change further down the controller, a new file.
    const text = readFileSync(controller, 'utf8').split('\n');
    text[0] = '// Widget controller: owned by the shop team.';
    text.push('// The user: reconcile notes.');
    writeFileSync(controller, text.join('\n'));
    writeFileSync(join(project, 'src/controllers/pricing.ts'), 'export const PRICE = 1;\n');
    writeFileSync(join(project, 'hack/upgrade-dropped-edited.txt'), 'the user changed this\n');

    beforeDryRun = readFileSync(controller, 'utf8');
    dryRun = cli(project, CLI, 'upgrade', '--from', old, '--dry-run');
    afterDryRun = readFileSync(controller, 'utf8');
    droppedAfterDryRun = existsSync(join(project, 'hack/upgrade-dropped.txt'));
    upgrade = cli(project, CLI, 'upgrade', '--from', old);
  });

  it('records the op-gen version and the commands in op-gen.yaml', () => {
    // The record the older op-gen wrote is what the upgrade replayed; after it, the newer version.
    const yaml = readFileSync(join(project, 'op-gen.yaml'), 'utf8');
    const version = (
      JSON.parse(readFileSync(join(OP_GEN_ROOT, 'package.json'), 'utf8')) as { version: string }
    ).version;
    assert.match(yaml, new RegExp(`opGenVersion: ${version.replace(/\./g, '\\.')}\\n`));
    assert.match(yaml, /- init\n\s+- --domain\n\s+- example\.com/);
    assert.match(yaml, /- create\n\s+- api\n\s+- --group\n\s+- shop/);
  });

  it('--dry-run prints the summary, writes nothing and exits non-zero for the conflict', () => {
    assert.equal(dryRun.code, 1, dryRun.err);
    assert.match(dryRun.out, /dry run: nothing written/);
    assert.match(dryRun.out, /conflicted.*: 1\n\s+src\/controllers\/widget\.controller\.ts/);
    assert.match(dryRun.err, /would have conflicts/);
    assert.equal(afterDryRun, beforeDryRun);
    assert.ok(droppedAfterDryRun, 'dry run deletes nothing');
  });

  it('keeps the user edits, takes the scaffold changes, marks the conflict and exits non-zero', () => {
    assert.equal(upgrade.code, 1, `${upgrade.out}\n${upgrade.err}`);
    assert.notEqual(beforeDryRun, readFileSync(controller, 'utf8'), 'the real run writes');
    // Conflict marked, reported.
    const merged = readFileSync(controller, 'utf8');
    assert.match(
      merged,
      /^<<<<<<< src\/controllers\/widget\.controller\.ts \(yours\)\n\/\/ Widget controller: owned by the shop team\.\n=======\n/m,
    );
    assert.match(merged, />>>>>>> op-gen \d/);
    assert.match(upgrade.out, /conflicted.*: 1\n\s+src\/controllers\/widget\.controller\.ts/);
    assert.match(
      upgrade.err,
      /1 file\(s\) have conflicts \(src\/controllers\/widget\.controller\.ts\).*resolve/,
    );
    // The user's other edits kept.
    assert.match(merged, /\/\/ The user: reconcile notes\.$/);
    assert.equal(
      readFileSync(join(project, 'src/controllers/pricing.ts'), 'utf8'),
      'export const PRICE = 1;\n',
    );
    // The newer scaffold's changes arrived: changed, added, deleted.
    assert.doesNotMatch(readFileSync(join(project, 'Dockerfile'), 'utf8'), /# old scaffold line/);
    assert.equal(
      readFileSync(join(project, '.dockerignore'), 'utf8'),
      readFileSync(join(OP_GEN_ROOT, 'templates/init/_dockerignore.hbs'), 'utf8'),
    );
    assert.equal(existsSync(join(project, 'hack/upgrade-dropped.txt')), false);
    assert.match(upgrade.out, /updated: \d+\n(\s+.*\n)*\s+Dockerfile\n/);
    assert.match(upgrade.out, /added: 1\n\s+\.dockerignore\n/);
    assert.match(upgrade.out, /deleted: 1\n\s+hack\/upgrade-dropped\.txt\n/);
    // A file the newer scaffold dropped but the user changed stays, reported as kept.
    assert.equal(
      readFileSync(join(project, 'hack/upgrade-dropped-edited.txt'), 'utf8'),
      'the user changed this\n',
    );
    assert.match(upgrade.out, /kept[^\n]*: 1\n\s+hack\/upgrade-dropped-edited\.txt\n/);
    assert.match(upgrade.out, /npm run generate/);
  });

  it('a project without the record: one error saying what to add', () => {
    const bare = join(tmp.dir, 'bare');
    mkdirSync(bare);
    writeFileSync(
      join(bare, 'op-gen.yaml'),
      'version: 1\ndomain: example.com\nprojectName: bare\napiDir: src/api\nresources:\n  - {group: shop, version: v1, kind: Widget, plural: widgets, namespaced: true, controller: true}\n',
    );
    const r = cli(bare, CLI, 'upgrade');
    assert.equal(r.code, 1);
    assert.match(r.err, /no scaffold record/);
    assert.match(
      r.err,
      /\[create, api, --group, shop, --version, v1, --kind, Widget, --namespaced, --controller\]/,
    );
    assert.doesNotMatch(r.err, /\n\s+at /, 'no stack');
  });
});

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readCsvMarkers } from '../../../src/bundle/descriptors.ts';
import { CONTROLLER, copyProject, run, scaffoldTemplate, snapshot, TYPES } from './project.ts';

/**
 * Issue 14's reproductions on a scaffolded project: broken input is an error naming file:line, with
 * exit code 1 and nothing written; every problem of a run is reported at once.
 */
describe('broken input in a scaffolded project', () => {
  let template = '';
  let cleanup = (): void => undefined;
  before(async () => {
    ({ dir: template, cleanup } = await scaffoldTemplate());
  });
  after(() => cleanup());

  /** Breaks TYPES (or another file), runs `argv`, and checks exit 1, the message, and that nothing was written. */
  async function fails(
    name: string,
    edit: Record<string, (text: string) => string>,
    argv: readonly string[],
    expected: RegExp,
  ): Promise<string> {
    const dir = copyProject(template, name, edit);
    const before = snapshot(dir);
    const r = await run(dir, ...argv);
    assert.equal(r.code, 1, `${argv.join(' ')}: exit 1, got ${r.code}\n${r.out}${r.err}`);
    assert.match(r.err, expected);
    assert.equal(r.out, '', 'nothing reported as written');
    assert.deepEqual(snapshot(dir), before, 'nothing written');
    return r.err;
  }

  const types = (change: (text: string) => string) => ({ [TYPES]: change });

  describe('item 1: syntax errors and unresolved names are the compiler messages, exit 1', () => {
    for (const argv of [
      ['generate', 'crd'],
      ['generate', 'client'],
    ]) {
      const cmd = argv.join(' ');
      it(`${cmd}: one brace too many (interface MemcachedSpec {{)`, async () => {
        await fails(
          `brace-${argv[1]}`,
          types((t) => t.replace('export interface MemcachedSpec {', 'export interface MemcachedSpec {{')),
          argv,
          /^op-gen: src\/api\/cache\/v1alpha1\/memcached\.ts:\d+:\d+: .+ \(TS1\d{3}\)/m,
        );
      });

      it(`${cmd}: the interface's closing brace deleted`, async () => {
        await fails(
          `closing-${argv[1]}`,
          types((t) => t.replace('  image: string;\n}', '  image: string;\n')),
          argv,
          /memcached\.ts:\d+:\d+: .*(expected|Declaration).* \(TS1\d{3}\)/,
        );
      });

      it(`${cmd}: a misspelt type (size?: strng) is "Cannot find name", not "has type any"`, async () => {
        const err = await fails(
          `strng-${argv[1]}`,
          types((t) => t.replace('size?: int32;', 'size?: strng;')),
          argv,
          /memcached\.ts:28:10: Cannot find name 'strng'\. Did you mean 'string'\? \(TS2552\)/,
        );
        assert.doesNotMatch(err, /has type `any`/);
      });

      it(`${cmd}: an import that does not resolve`, async () => {
        await fails(
          `import-${argv[1]}`,
          types((t) =>
            t
              .replace(
                'import { defineKind }',
                "import type { Extra } from './extra.ts';\nimport { defineKind }",
              )
              .replace('  image: string;\n}', '  image: string;\n  extra?: Extra;\n}'),
          ),
          argv,
          /memcached\.ts:18:28: Cannot find module '\.\/extra\.ts' or its corresponding type declarations\. \(TS2307\)/,
        );
      });

      it(`${cmd}: an import of a name the module does not export`, async () => {
        await fails(
          `member-${argv[1]}`,
          types((t) => t.replace('import type { Condition, int32,', 'import type { Condition, int23,')),
          argv,
          /memcached\.ts:17:26: '"op-gen"' has no exported member named 'int23'\. Did you mean 'int32'\? \(TS2724\)/,
        );
      });

      it(`${cmd}: broken: = ;`, async () => {
        await fails(
          `eq-${argv[1]}`,
          types((t) => t.replace('  image: string;\n}', '  image: string;\n  broken: = ;\n}')),
          argv,
          /memcached\.ts:35:11: Type expected\. \(TS1110\)/,
        );
      });
    }

    it('generate rbac: .for(MemcachedKind)))) is a syntax error of the controller', async () => {
      await fails(
        'rbac-parens',
        { [CONTROLLER]: (t) => t.replace('.for(MemcachedKind)', '.for(MemcachedKind))))') },
        ['generate', 'rbac'],
        /^op-gen: src\/controllers\/memcached\.controller\.ts:\d+:\d+: .+ \(TS1\d{3}\)/m,
      );
    });

    it('the bundle reads @csv markers only from sources that compile', async () => {
      const dir = copyProject(
        template,
        'csv-strng',
        types((t) => t.replace('size?: int32;', 'size?: strng;')),
      );
      await assert.rejects(readCsvMarkers(dir, 'src/api'), /memcached\.ts:28:10: Cannot find name 'strng'/);
    });
  });

  describe('item 2: every problem of a run, sorted by file:line, with a count', () => {
    it('marker, structural and CEL problems together', async () => {
      const err = await fails(
        'many',
        types((t) =>
          t
            .replace('@minLength 1', '@minLength one')
            .replace('@maximum 10', '@maximum 10\n   * @validation rule="self.nope > 0"')
            .replace(
              'readyReplicas?: int32;',
              'readyReplicas?: int32;\n  /** @listMapKey name */\n  tags?: string[];',
            )
            .replace(
              '/** Replicas of the Deployment that are ready. */',
              '/**\n   * Replicas of the Deployment that are ready.\n   * @minimun 0\n   */',
            ),
        ),
        ['generate', 'crd'],
        /\n4 problems\n$/,
      );
      const lines = err
        .replace(/^op-gen: /, '')
        .trimEnd()
        .split('\n');
      assert.equal(lines.length, 5, err);
      assert.match(lines[0] ?? '', /memcached\.ts:26: Memcached\.spec\.size: CEL rule "self\.nope > 0"/);
      assert.match(lines[1] ?? '', /memcached\.ts:33: @minLength: value: expected an integer, got "one"/);
      assert.match(lines[2] ?? '', /memcached\.ts:49: @minimun: unknown marker\. Did you mean @minimum\?/);
      assert.match(
        lines[3] ?? '',
        /memcached\.ts:53: Memcached\.status\.tags: @listMapKey needs @listType map/,
      );
    });

    it('one problem is printed alone, without a count', async () => {
      const err = await fails(
        'one',
        types((t) => t.replace('@minLength 1', '@minLength one')),
        ['generate', 'crd'],
        /@minLength/,
      );
      assert.doesNotMatch(err, /problems/);
      assert.equal(err.trimEnd().split('\n').length, 1);
    });
  });

  describe('item 3: controller-gen (Go) form markers name the op-gen form', () => {
    it('@kubebuilder:validation:Minimum 0 as a tag', async () => {
      await fails(
        'go-tag',
        types((t) => t.replace('   * @minimum 0\n', '   * @kubebuilder:validation:Minimum 0\n')),
        ['generate', 'crd'],
        /memcached\.ts:24: @kubebuilder:validation:Minimum 0 is controller-gen's \(Go\) form, which op-gen does not read\. Write @minimum 0 \(see docs\/markers\.md\)/,
      );
    });

    it('the misspelt @kubebuilder:validation:Minimun 0', async () => {
      await fails(
        'go-tag-typo',
        types((t) => t.replace('   * @minimum 0\n', '   * @kubebuilder:validation:Minimun 0\n')),
        ['generate', 'crd'],
        /memcached\.ts:24: @kubebuilder:validation:Minimun 0 is controller-gen's .*Write @minimum 0/,
      );
    });

    it('+kubebuilder:validation:Minimum=0 on a line of its own, after another tag: its own line, not the tag above', async () => {
      const err = await fails(
        'go-line',
        types((t) =>
          t.replace(
            '  /**\n   * Container image the Deployment runs.\n   * @minLength 1\n   */\n  image: string;',
            '  /**\n   * Container image the Deployment runs.\n   * @optional\n   * +kubebuilder:validation:MinLength=1\n   */\n  image: string;',
          ),
        ),
        ['generate', 'crd'],
        /memcached\.ts:33: \+kubebuilder:validation:MinLength=1 is controller-gen's \(Go\) form, which op-gen does not read\. Write @minLength 1/,
      );
      assert.doesNotMatch(err, /@optional/);
    });

    it('+optional, and +kubebuilder markers on the kind, each on its line', async () => {
      const err = await fails(
        'go-kind',
        types((t) =>
          t
            .replace('  size?: int32;', '  size?: int32;\n  /** +optional */\n  note?: string;')
            .replace(
              ' * @subresource status\n',
              ' * +kubebuilder:subresource:status\n * +kubebuilder:printcolumn:name="Size",type=integer,JSONPath=".spec.size"\n',
            ),
        ),
        ['generate', 'crd'],
        /\n3 problems\n$/,
      );
      assert.match(err, /memcached\.ts:29: \+optional is controller-gen's .*Write @optional/);
      assert.match(err, /memcached\.ts:56: \+kubebuilder:subresource:status is .*Write @subresource status/);
      assert.match(
        err,
        /memcached\.ts:57: \+kubebuilder:printcolumn:name="Size",type=integer,JSONPath="\.spec\.size" is .*Write @printcolumn name="Size" type=integer jsonPath="\.spec\.size"/,
      );
    });

    it('generate rbac: +kubebuilder:rbac:... names the @rbac to write', async () => {
      await fails(
        'go-rbac',
        {
          [CONTROLLER]: (t) =>
            t.replace(
              ' * @rbac groups="" resources=events verbs=create;patch',
              ' * +kubebuilder:rbac:groups="",resources=events,verbs=create;patch',
            ),
        },
        ['generate', 'rbac'],
        /memcached\.controller\.ts:\d+: \+kubebuilder:rbac:groups="",resources=events,verbs=create;patch is controller-gen's \(Go\) form, which op-gen does not read\. Write @rbac groups="" resources=events verbs=create;patch \(see docs\/generate-rbac\.md\)/,
      );
    });
  });

  describe('item 4: @csv: typos are did-you-mean errors', () => {
    it('@csv:displayNam and @csv:descriptr', async () => {
      const dir = copyProject(
        template,
        'csv-typo',
        types((t) =>
          t
            .replace(' * @kind\n', ' * @kind\n * @csv:displayNam Memcached Cluster\n')
            .replace('   * @minLength 1\n', '   * @minLength 1\n   * @csv:descriptr displayName=Image\n'),
        ),
      );
      await assert.rejects(readCsvMarkers(dir, 'src/api'), (err: Error) => {
        assert.match(
          err.message,
          /memcached\.ts:33: @csv:descriptr: unknown marker\. Did you mean @csv:descriptor\?/,
        );
        assert.match(
          err.message,
          /memcached\.ts:54: @csv:displayNam: unknown marker\. Did you mean @csv:displayName\?/,
        );
        assert.match(err.message, /\n2 problems$/);
        return true;
      });
    });

    it('an unknown @csv: marker with no close match lists the @csv: markers', async () => {
      const dir = copyProject(
        template,
        'csv-unknown',
        types((t) => t.replace(' * @kind\n', ' * @kind\n * @csv:icon x.png\n')),
      );
      await assert.rejects(
        readCsvMarkers(dir, 'src/api'),
        /@csv:icon: unknown marker\. The @csv: markers are @csv:displayName, @csv:resource, @csv:descriptor/,
      );
    });
  });

  it('item 5: @rbac with commas says the arguments are separated by spaces', async () => {
    const rbacLine =
      ' * @rbac groups=apps resources=deployments verbs=get;list;watch;create;update;patch;delete';
    // The line the scaffold puts the marker on (the error must name that line, not a neighbour's).
    const line = readFileSync(join(template, CONTROLLER), 'utf8').split('\n').indexOf(rbacLine) + 1;
    assert.ok(line > 0, 'the scaffolded controller has the Deployment @rbac marker');
    await fails(
      'rbac-commas',
      {
        [CONTROLLER]: (t) => t.replace(rbacLine, ' * @rbac groups=apps,resources=deployments,verbs=get'),
      },
      ['generate', 'rbac'],
      new RegExp(
        `memcached\\.controller\\.ts:${line}: @rbac: arguments are separated by spaces, not commas: @rbac groups=apps resources=deployments verbs=get`,
      ),
    );
  });

  it('the unbroken project generates (the fixture is sound)', async () => {
    const dir = copyProject(template, 'sound');
    for (const argv of [
      ['generate', 'crd'],
      ['generate', 'rbac'],
      ['generate', 'client'],
    ]) {
      const r = await run(dir, ...argv);
      assert.equal(r.code, 0, `${argv.join(' ')}: ${r.err}`);
    }
    assert.ok(snapshot(join(dir, 'config/crd/bases')).size > 0);
  });
});

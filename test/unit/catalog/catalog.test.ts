import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { parseAllDocuments, stringify } from 'yaml';
import { CATALOG_RULES, validateCatalog } from '../../../src/catalog/index.ts';
import { renderCatalog, type CatalogBundle } from '../../../src/catalog/render.ts';
import { assertGolden } from '../../helpers/golden.ts';
import { opGen, sampleProject } from '../bundle/project.ts';

/**
 * `op-gen catalog` over three releases of the scaffold's operator (0.1.0; 0.1.1 replacing it; 0.2.0
 * replacing 0.1.1 with an olm.skipRange), each bundled by `op-gen bundle` as a user releases it, with
 * opm's basic and semver templates; then every declcfg rule, each hit by a catalog broken on purpose.
 */

const GOLDEN = new URL('../../golden/catalog/', import.meta.url).pathname;
const IMAGE = 'example.com/memcached-operator-bundle:v{version}';
const FILE = 'catalog/memcached-operator/catalog.yaml';

// A catalog blob as the tests edit it (any path may be read or assigned).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Blob = Record<string, any>;

const RELEASES: readonly (readonly string[])[] = [
  ['0.1.0'],
  ['0.1.1', '--replaces', 'memcached-operator.v0.1.0'],
  ['0.2.0', '--replaces', 'memcached-operator.v0.1.1', '--skip-range', '>=0.1.0 <0.2.0'],
];

function blobs(text: string): Blob[] {
  return parseAllDocuments(text).map((d) => d.toJS() as Blob);
}

describe('op-gen catalog', () => {
  let project = '';
  before(() => {
    project = sampleProject();
    mkdirSync(join(project, 'releases'));
    for (const [version, ...edges] of RELEASES) {
      const r = opGen(
        project,
        'bundle',
        '--version',
        version!,
        '--channels',
        'stable',
        '--image',
        `example.com/memcached-operator:${version}`,
        '--created-at',
        '2026-01-01T00:00:00Z',
        ...edges,
      );
      assert.equal(r.status, 0, r.stderr);
      cpSync(join(project, 'bundle'), join(project, 'releases', version!), { recursive: true });
    }
  });

  const catalog = (...args: string[]): { status: number | null; stdout: string; stderr: string } =>
    opGen(project, 'catalog', ...args, '--bundle-image', IMAGE);

  it('basic template: the upgrade graph the bundles declare, equal to the golden, deterministic, --check', () => {
    // The order of the folders does not matter: releases are ordered by version.
    const r = catalog('releases/0.2.0', 'releases/0.1.0', 'releases/0.1.1');
    assert.equal(r.status, 0, r.stderr);
    const text = readFileSync(join(project, FILE), 'utf8');
    assertGolden(join(GOLDEN, 'basic.yaml'), text);
    const again = catalog('releases/0.1.0', 'releases/0.1.1', 'releases/0.2.0', '--check');
    assert.equal(again.status, 0, again.stdout + again.stderr);
    writeFileSync(join(project, FILE), text.replace('defaultChannel: stable', 'defaultChannel: alpha'));
    const stale = catalog('releases/0.1.0', 'releases/0.1.1', 'releases/0.2.0', '--check');
    assert.equal(stale.status, 1, '--check notices an edited catalog');
    assert.equal(
      readFileSync(join(project, FILE), 'utf8').includes('defaultChannel: alpha'),
      true,
      '--check writes nothing',
    );
    const b = blobs(text);
    assert.deepEqual(
      b.map((x) => `${x.schema} ${x.name}`),
      [
        'olm.package memcached-operator',
        'olm.channel stable',
        'olm.bundle memcached-operator.v0.1.0',
        'olm.bundle memcached-operator.v0.1.1',
        'olm.bundle memcached-operator.v0.2.0',
      ],
    );
    assert.deepEqual(validateCatalog(b, FILE), []);
  });

  it("semver template (opm's edges): a channel per minor; a minor's newest patch replaces the previous minor's and skips the rest; equal to the golden", () => {
    const r = catalog(
      'releases/0.1.0',
      'releases/0.1.1',
      'releases/0.2.0',
      '--template',
      'semver',
      '--out',
      'semver',
    );
    assert.equal(r.status, 0, r.stderr);
    const text = readFileSync(join(project, 'semver/memcached-operator/catalog.yaml'), 'utf8');
    assertGolden(join(GOLDEN, 'semver.yaml'), text);
    const channels = blobs(text).filter((x) => x.schema === 'olm.channel');
    assert.deepEqual(channels, [
      {
        schema: 'olm.channel',
        package: 'memcached-operator',
        name: 'stable-v0.1',
        entries: [
          { name: 'memcached-operator.v0.1.0' },
          { name: 'memcached-operator.v0.1.1', skips: ['memcached-operator.v0.1.0'] },
        ],
      },
      {
        schema: 'olm.channel',
        package: 'memcached-operator',
        name: 'stable-v0.2',
        entries: [
          {
            name: 'memcached-operator.v0.2.0',
            replaces: 'memcached-operator.v0.1.1',
            skips: ['memcached-operator.v0.1.0'],
          },
        ],
      },
    ]);
    assert.equal(blobs(text)[0]?.defaultChannel, 'stable-v0.2');
  });

  it('semver --granularity major: one channel for the major version', () => {
    const r = catalog(
      'releases/0.1.0',
      'releases/0.1.1',
      'releases/0.2.0',
      '--template',
      'semver',
      '--granularity',
      'major',
      '--out',
      'major',
    );
    assert.equal(r.status, 0, r.stderr);
    const channels = blobs(
      readFileSync(join(project, 'major/memcached-operator/catalog.yaml'), 'utf8'),
    ).filter((x) => x.schema === 'olm.channel');
    assert.deepEqual(
      channels.map((c) => [c.name, c.entries]),
      [
        [
          'stable-v0',
          [
            { name: 'memcached-operator.v0.1.0' },
            { name: 'memcached-operator.v0.1.1', skips: ['memcached-operator.v0.1.0'] },
            {
              name: 'memcached-operator.v0.2.0',
              replaces: 'memcached-operator.v0.1.1',
              skips: ['memcached-operator.v0.1.0'],
            },
          ],
        ],
      ],
    );
  });

  it('refuses a basic catalog whose bundles declare no upgrade edges, naming the file and rule, writing nothing', () => {
    // 0.1.0 twice under other names would be refused as a duplicate version: take 0.1.0 and a 0.3.0 without --replaces.
    const r0 = opGen(
      project,
      'bundle',
      '--version',
      '0.3.0',
      '--channels',
      'stable',
      '--image',
      'example.com/memcached-operator:0.3.0',
      '--created-at',
      '2026-01-01T00:00:00Z',
      '--out',
      'releases/0.3.0',
    );
    assert.equal(r0.status, 0, r0.stderr);
    const r = catalog('releases/0.1.0', 'releases/0.3.0', '--out', 'no-edges');
    assert.equal(r.status, 1);
    assert.match(
      r.stderr,
      /no-edges\/memcached-operator\/catalog\.yaml: \[catalog-one-head\] channel stable has 2 heads \(memcached-operator\.v0\.1\.0, memcached-operator\.v0\.3\.0\)/,
    );
    assert.equal(existsSync(join(project, 'no-edges')), false, 'nothing written');
  });

  it('refuses the semver template for bundles outside candidate, fast and stable, saying what to do', () => {
    const r0 = opGen(
      project,
      'bundle',
      '--version',
      '0.4.0',
      '--channels',
      'alpha',
      '--image',
      'example.com/memcached-operator:0.4.0',
      '--created-at',
      '2026-01-01T00:00:00Z',
      '--out',
      'releases/0.4.0',
    );
    assert.equal(r0.status, 0, r0.stderr);
    const r = catalog('releases/0.4.0', '--template', 'semver', '--out', 'alpha');
    assert.equal(r.status, 1);
    assert.match(
      r.stderr,
      /releases\/0\.4\.0: channels alpha: the semver template takes bundles of the candidate, fast and stable channels/,
    );
  });

  const image = (v: string): string => IMAGE.replace('{version}', v);
  const template = (name: string, value: unknown): string => {
    writeFileSync(join(project, name), stringify(value));
    return name;
  };
  const ALL = ['releases/0.1.0', 'releases/0.1.1', 'releases/0.2.0'];

  it('--from an opm semver template: the bundles it lists in stable give the semver golden, as --template semver does', () => {
    const file = template('semver-template.yaml', {
      schema: 'olm.semver',
      generateMinorChannels: true,
      stable: { bundles: ['0.1.0', '0.1.1', '0.2.0'].map((v) => ({ image: image(v) })) },
    });
    const r = catalog(...ALL, '--from', file, '--out', 'from-semver');
    assert.equal(r.status, 0, r.stderr);
    assertGolden(
      join(GOLDEN, 'semver.yaml'),
      readFileSync(join(project, 'from-semver/memcached-operator/catalog.yaml'), 'utf8'),
    );
  });

  it('--from olm.semver: major and minor channels at once, the buckets from the template, defaultChannelTypePreference breaking a tie', () => {
    const both = (pref?: string): Blob[] => {
      const file = template('semver-both.yaml', {
        schema: 'olm.semver',
        generateMajorChannels: true,
        generateMinorChannels: true,
        ...(pref ? { defaultChannelTypePreference: pref } : {}),
        // 0.1.0 was bundled for stable only; the template puts it in candidate too, as opm would.
        candidate: { bundles: [{ image: image('0.1.0') }] },
        stable: { bundles: [{ image: image('0.1.0') }, { image: image('0.1.1') }] },
      });
      const r = catalog('releases/0.1.0', 'releases/0.1.1', '--from', file, '--out', 'from-both');
      assert.equal(r.status, 0, r.stderr);
      return blobs(readFileSync(join(project, 'from-both/memcached-operator/catalog.yaml'), 'utf8'));
    };
    const minorFirst = both();
    assert.deepEqual(
      minorFirst
        .filter((b) => b.schema === 'olm.channel')
        .map((c) => [c.name, c.entries.map((e: Blob) => e.name)]),
      [
        ['candidate-v0', ['memcached-operator.v0.1.0']],
        ['candidate-v0.1', ['memcached-operator.v0.1.0']],
        ['stable-v0', ['memcached-operator.v0.1.0', 'memcached-operator.v0.1.1']],
        ['stable-v0.1', ['memcached-operator.v0.1.0', 'memcached-operator.v0.1.1']],
      ],
    );
    // stable-v0 and stable-v0.1 both start at 0.1.0: the preference (minor when not set) decides.
    assert.equal(minorFirst[0]!.defaultChannel, 'stable-v0.1');
    assert.equal(both('major')[0]!.defaultChannel, 'stable-v0');
    assert.equal(
      opGen(project, 'catalog', 'validate', 'from-both/memcached-operator/catalog.yaml').status,
      0,
    );
  });

  it('--from an opm basic template: its package, channels and deprecations as written, each bundle image rendered from its folder', () => {
    const file = template('basic-template.yaml', {
      schema: 'olm.template.basic',
      entries: [
        { schema: 'olm.package', name: 'memcached-operator', defaultChannel: 'fast' },
        {
          schema: 'olm.channel',
          package: 'memcached-operator',
          name: 'fast',
          entries: [
            { name: 'memcached-operator.v0.1.0' },
            { name: 'memcached-operator.v0.2.0', replaces: 'memcached-operator.v0.1.0' },
          ],
        },
        { schema: 'olm.bundle', image: image('0.2.0') },
        { schema: 'olm.bundle', image: image('0.1.0') },
        {
          schema: 'olm.deprecations',
          package: 'memcached-operator',
          entries: [
            { reference: { schema: 'olm.bundle', name: 'memcached-operator.v0.1.0' }, message: 'upgrade' },
          ],
        },
      ],
    });
    const r = catalog('releases/0.2.0', 'releases/0.1.0', '--from', file, '--out', 'from-basic');
    assert.equal(r.status, 0, r.stderr);
    const out = blobs(readFileSync(join(project, 'from-basic/memcached-operator/catalog.yaml'), 'utf8'));
    assert.deepEqual(
      out.map((b) => [b.schema, b.name ?? b.package]),
      [
        ['olm.package', 'memcached-operator'],
        ['olm.channel', 'fast'],
        ['olm.bundle', 'memcached-operator.v0.1.0'],
        ['olm.bundle', 'memcached-operator.v0.2.0'],
        ['olm.deprecations', 'memcached-operator'],
      ],
    );
    const bundle = out[3]!;
    assert.equal(bundle.image, image('0.2.0'));
    assert.deepEqual(
      bundle.properties.map((p: Blob) => p.type),
      ['olm.package', 'olm.gvk', 'olm.csv.metadata'],
      'rendered from the folder as op-gen catalog renders a bundle',
    );
  });

  it('--from: a template image without its folder, a folder not in the template, a basic bundle with more than an image: all reported, nothing written', () => {
    const file = template('basic-broken.yaml', {
      schema: 'olm.template.basic',
      entries: [
        { schema: 'olm.package', name: 'memcached-operator', defaultChannel: 'stable' },
        {
          schema: 'olm.channel',
          package: 'memcached-operator',
          name: 'stable',
          entries: [{ name: 'memcached-operator.v0.1.0' }],
        },
        { schema: 'olm.bundle', image: image('0.1.0'), package: 'memcached-operator' },
        { schema: 'olm.bundle', image: image('0.9.0') },
      ],
    });
    const r = catalog('releases/0.1.0', 'releases/0.2.0', '--from', file, '--out', 'from-broken');
    assert.equal(r.status, 1);
    assert.match(
      r.stderr,
      /basic-broken\.yaml: entry 3: a basic template's olm\.bundle has only schema and image .*remove package/,
    );
    assert.match(
      r.stderr,
      /basic-broken\.yaml: entry 4: image "example\.com\/memcached-operator-bundle:v0\.9\.0" is not the --bundle-image of any bundle folder given/,
    );
    assert.match(
      r.stderr,
      /releases\/0\.2\.0: its image example\.com\/memcached-operator-bundle:v0\.2\.0 is not in basic-broken\.yaml/,
    );
    assert.equal(existsSync(join(project, 'from-broken')), false, 'nothing written');
    const unknown = catalog(
      'releases/0.1.0',
      '--from',
      template('other.yaml', { schema: 'olm.template.composite' }),
    );
    assert.equal(unknown.status, 1);
    assert.match(
      unknown.stderr,
      /schema "olm\.template\.composite": op-gen reads opm's olm\.template\.basic and olm\.semver templates/,
    );
  });

  it('--deprecations adds the olm.deprecations blob, checked before anything is written', () => {
    writeFileSync(
      join(project, 'deprecations.yaml'),
      stringify({
        schema: 'olm.deprecations',
        entries: [
          {
            reference: { schema: 'olm.bundle', name: 'memcached-operator.v0.1.0' },
            message: 'upgrade to 0.1.1',
          },
        ],
      }),
    );
    const r = catalog(
      'releases/0.1.0',
      'releases/0.1.1',
      'releases/0.2.0',
      '--deprecations',
      'deprecations.yaml',
      '--out',
      'deprecated',
    );
    assert.equal(r.status, 0, r.stderr);
    const written = blobs(readFileSync(join(project, 'deprecated/memcached-operator/catalog.yaml'), 'utf8'));
    assert.deepEqual(written.at(-1), {
      schema: 'olm.deprecations',
      package: 'memcached-operator',
      entries: [
        {
          reference: { schema: 'olm.bundle', name: 'memcached-operator.v0.1.0' },
          message: 'upgrade to 0.1.1',
        },
      ],
    });
    assert.equal(
      opGen(project, 'catalog', 'validate', 'deprecated/memcached-operator/catalog.yaml').status,
      0,
    );

    writeFileSync(
      join(project, 'deprecations.yaml'),
      stringify({
        schema: 'olm.deprecations',
        entries: [{ reference: { schema: 'olm.channel', name: 'beta' }, message: 'm' }],
      }),
    );
    const bad = catalog('releases/0.1.0', '--deprecations', 'deprecations.yaml', '--out', 'bad-deprecations');
    assert.equal(bad.status, 1);
    assert.match(
      bad.stderr,
      /\[catalog-deprecations\] olm\.deprecations entry 1: channel "beta" is not a channel of package memcached-operator/,
    );
    assert.equal(existsSync(join(project, 'bad-deprecations')), false, 'nothing written');
  });

  it("catalog validate reads opm's JSON form, a stream of objects; a broken one is one line with the line number", () => {
    assert.equal(catalog('releases/0.1.0', 'releases/0.1.1', 'releases/0.2.0').status, 0);
    const stream = blobs(readFileSync(join(project, FILE), 'utf8'))
      .map((b) => JSON.stringify(b, null, 2))
      .join('\n');
    writeFileSync(join(project, 'catalog.json'), stream);
    const ok = opGen(project, 'catalog', 'validate', 'catalog.json');
    assert.equal(ok.status, 0, ok.stdout + ok.stderr);
    const fast = stream.replace('"defaultChannel": "stable"', '"defaultChannel": "fast"');
    writeFileSync(join(project, 'catalog.json'), fast);
    const r = opGen(project, 'catalog', 'validate', 'catalog.json');
    assert.equal(r.status, 1);
    assert.match(
      r.stdout,
      /catalog\.json: \[catalog-default-channel\] package memcached-operator names default channel "fast"/,
    );
    writeFileSync(
      join(project, 'catalog.json'),
      stream.replace('"schema": "olm.channel"', '"schema": olm.channel'),
    );
    const broken = opGen(project, 'catalog', 'validate', 'catalog.json');
    assert.equal(broken.status, 1);
    assert.match(broken.stderr, /catalog\.json:6: JSON syntax error in the value starting here/);
    assert.doesNotMatch(broken.stderr, /\n\s+at /);
  });

  it('catalog validate: a well-formed catalog passes; a broken one fails naming the file and the rule', () => {
    assert.equal(catalog('releases/0.1.0', 'releases/0.1.1', 'releases/0.2.0').status, 0);
    const ok = opGen(project, 'catalog', 'validate', FILE);
    assert.equal(ok.status, 0, ok.stdout + ok.stderr);
    const broken = blobs(readFileSync(join(project, FILE), 'utf8'));
    broken[0]!.defaultChannel = 'fast';
    writeFileSync(join(project, 'broken.yaml'), broken.map((b) => stringify(b)).join('---\n'));
    const r = opGen(project, 'catalog', 'validate', 'broken.yaml');
    assert.equal(r.status, 1);
    assert.match(
      r.stdout,
      /broken\.yaml: \[catalog-default-channel\] package memcached-operator names default channel "fast"/,
    );
  });
});

describe('catalog validation: every declcfg rule, each hit by a catalog broken on purpose', () => {
  const bundle = (version: string, extra: Blob = {}): Blob => ({
    schema: 'olm.bundle',
    name: `widget.v${version}`,
    package: 'widget',
    image: `example.com/widget-bundle:v${version}`,
    properties: [{ type: 'olm.package', value: { packageName: 'widget', version } }],
    ...extra,
  });
  const good = (): Blob[] => [
    { schema: 'olm.package', name: 'widget', defaultChannel: 'stable' },
    {
      schema: 'olm.channel',
      package: 'widget',
      name: 'stable',
      entries: [{ name: 'widget.v0.1.0' }, { name: 'widget.v0.2.0', replaces: 'widget.v0.1.0' }],
    },
    bundle('0.1.0'),
    bundle('0.2.0'),
  ];
  const cases: [string, (c: Blob[]) => void, string][] = [
    ['an unknown schema', (c) => c.push({ schema: 'olm.template.basic', entries: [] }), 'catalog-schema'],
    [
      'a second package',
      (c) => c.push({ schema: 'olm.package', name: 'gadget', defaultChannel: 'stable' }),
      'catalog-one-package',
    ],
    ['a missing default channel', (c) => (c[0]!.defaultChannel = 'fast'), 'catalog-default-channel'],
    [
      'a bundle name that is no CSV name',
      (c) => {
        c[3]!.name = 'Widget_0.2';
        c[1]!.entries[1].name = 'Widget_0.2';
      },
      'catalog-names',
    ],
    [
      'a version that is not semver',
      (c) => (c[3]!.properties[0].value.version = '0.2'),
      'catalog-bundle-package',
    ],
    ['a malformed bundle image', (c) => (c[3]!.image = 'Example.com/UPPER:v0.2.0'), 'catalog-bundle-image'],
    [
      'an entry without its bundle',
      (c) => c[1]!.entries.push({ name: 'widget.v0.3.0', replaces: 'widget.v0.2.0' }),
      'catalog-entry-bundle',
    ],
    ['two heads', (c) => delete c[1]!.entries[1].replaces, 'catalog-one-head'],
    [
      'a replaces cycle',
      (c) => {
        c[1]!.entries[0].replaces = 'widget.v0.2.0';
        c[1]!.entries.push({ name: 'widget.v0.3.0', replaces: 'widget.v0.2.0' });
        c.push(bundle('0.3.0'));
      },
      'catalog-no-cycle',
    ],
    ...(
      [
        ['a deprecated bundle that is not there', { schema: 'olm.bundle', name: 'widget.v9.0.0' }],
        ['a deprecated channel that is not there', { schema: 'olm.channel', name: 'fast' }],
        ['a package reference with a name', { schema: 'olm.package', name: 'widget' }],
        ['a reference without a schema', { name: 'widget.v0.1.0' }],
        ['a reference of another schema', { schema: 'olm.gvk', name: 'x' }],
      ] as const
    ).map(([what, reference]): [string, (c: Blob[]) => void, string] => [
      what,
      (c) =>
        c.push({ schema: 'olm.deprecations', package: 'widget', entries: [{ reference, message: 'gone' }] }),
      'catalog-deprecations',
    ]),
    [
      'a deprecation without a message',
      (c) =>
        c.push({
          schema: 'olm.deprecations',
          package: 'widget',
          entries: [{ reference: { schema: 'olm.bundle', name: 'widget.v0.1.0' }, message: '' }],
        }),
      'catalog-deprecations',
    ],
    [
      'the same bundle deprecated twice',
      (c) =>
        c.push({
          schema: 'olm.deprecations',
          package: 'widget',
          entries: [1, 2].map(() => ({
            reference: { schema: 'olm.bundle', name: 'widget.v0.1.0' },
            message: 'm',
          })),
        }),
      'catalog-deprecations',
    ],
    [
      'two olm.deprecations blobs',
      (c) =>
        c.push(
          { schema: 'olm.deprecations', package: 'widget', entries: [] },
          { schema: 'olm.deprecations', package: 'widget', entries: [] },
        ),
      'catalog-deprecations',
    ],
    [
      'deprecations of another package',
      (c) => c.push({ schema: 'olm.deprecations', package: 'gadget', entries: [] }),
      'catalog-deprecations',
    ],
  ];

  it('the hand-written catalog is clean, also with deprecations of the package, a channel and a bundle', () => {
    assert.deepEqual(validateCatalog(good(), 'catalog.yaml'), []);
    const deprecated = [
      ...good(),
      {
        schema: 'olm.deprecations',
        package: 'widget',
        entries: [
          { reference: { schema: 'olm.package' }, message: 'widget is replaced by gadget' },
          { reference: { schema: 'olm.channel', name: 'stable' }, message: 'use stable-v1' },
          { reference: { schema: 'olm.bundle', name: 'widget.v0.1.0' }, message: 'CVE-2026-0001: upgrade' },
        ],
      },
    ];
    assert.deepEqual(validateCatalog(deprecated, 'catalog.yaml'), []);
  });

  for (const [what, edit, rule] of cases) {
    it(`${what}: ${rule}`, () => {
      const c = good();
      edit(c);
      const problems = validateCatalog(c, 'catalog.yaml');
      assert.deepEqual([...new Set(problems.map((p) => p.rule))], [rule], JSON.stringify(problems));
      assert.match(problems[0]!.message, new RegExp(`^catalog\\.yaml: \\[${rule}\\] `));
    });
  }

  it('has a case for every rule', () => {
    assert.deepEqual(
      CATALOG_RULES.filter((r) => !cases.some(([, , rule]) => rule === r)),
      [],
    );
  });
});

describe("semver template edges, as opm's linkChannels draws them", () => {
  const release = (version: string, channels = ['stable']): CatalogBundle => ({
    dir: `releases/${version}`,
    name: `foo.v${version}`,
    package: 'foo',
    version,
    channels,
    skips: [],
    properties: [{ type: 'olm.package', value: { packageName: 'foo', version } }],
    relatedImages: [],
  });
  const channelsOf = (bundles: CatalogBundle[], granularity: 'minor' | 'major'): unknown[] =>
    renderCatalog(bundles, {
      template: 'semver',
      bundleImage: 'example.com/foo-bundle:v{version}',
      granularity,
    })
      .filter((b) => b.schema === 'olm.channel')
      .map((c) => [c.name, (c as { entries: unknown }).entries]);

  it('patches: only the newest patch of a minor has edges; nothing crosses a major (operator-registry issue 1031)', () => {
    const bundles = ['0.1.0', '0.1.1', '0.1.2', '0.2.0', '1.0.0'].map((v) => release(v));
    assert.deepEqual(channelsOf(bundles, 'minor'), [
      [
        'stable-v0.1',
        [
          { name: 'foo.v0.1.0' },
          { name: 'foo.v0.1.1' },
          { name: 'foo.v0.1.2', skips: ['foo.v0.1.0', 'foo.v0.1.1'] },
        ],
      ],
      ['stable-v0.2', [{ name: 'foo.v0.2.0', replaces: 'foo.v0.1.2', skips: ['foo.v0.1.0', 'foo.v0.1.1'] }]],
      ['stable-v1.0', [{ name: 'foo.v1.0.0' }]],
    ]);
    assert.equal(
      (
        renderCatalog(bundles, { template: 'semver', bundleImage: 'x.io/foo:v{version}' })[0] as {
          defaultChannel: string;
        }
      ).defaultChannel,
      'stable-v1.0',
    );
  });

  it('buckets are linked apart; the default channel is the most stable one', () => {
    const bundles = [
      release('0.1.0', ['candidate', 'fast']),
      release('0.1.1', ['candidate']),
      release('0.2.0', ['fast']),
    ];
    const rendered = renderCatalog(bundles, { template: 'semver', bundleImage: 'x.io/foo:v{version}' });
    assert.deepEqual(channelsOf(bundles, 'minor'), [
      ['candidate-v0.1', [{ name: 'foo.v0.1.0' }, { name: 'foo.v0.1.1', skips: ['foo.v0.1.0'] }]],
      ['fast-v0.1', [{ name: 'foo.v0.1.0' }]],
      ['fast-v0.2', [{ name: 'foo.v0.2.0', replaces: 'foo.v0.1.0' }]],
    ]);
    assert.equal((rendered[0] as { defaultChannel: string }).defaultChannel, 'fast-v0.2');
  });
});

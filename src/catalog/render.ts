/**
 * `op-gen catalog`: a file-based catalog for one package from the bundle folders of its releases, as
 * opm's templates render one. `basic`: channels and upgrade edges as the bundles declare them (their
 * annotations' channels, the CSV's replaces, skips and olm.skipRange). `semver`: opm's semver template:
 * buckets candidate, fast and stable (from the bundles' channels), one channel per bucket and minor
 * (`stable-v0.2`) or major (`stable-v0`) version, with opm's edges (linkSemver below); the default
 * channel is the newest channel of the most stable bucket.
 */
import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { readYamlDir, readYamlFile } from '../bundle/manifests.ts';
import { OpGenError } from '../errors.ts';
import { ProblemsError } from '../shared/problems.ts';
import type { BundleBlob, CatalogBlob, ChannelBlob, ChannelEntry, PackageBlob, Property } from './declcfg.ts';

export type CatalogTemplate = 'basic' | 'semver';
export const SEMVER_BUCKETS = ['stable', 'fast', 'candidate'] as const;

export interface CatalogBundle {
  /** The bundle folder, as given. */
  readonly dir: string;
  readonly name: string;
  readonly package: string;
  readonly version: string;
  readonly channels: readonly string[];
  readonly defaultChannel?: string;
  readonly replaces?: string;
  readonly skips: readonly string[];
  readonly skipRange?: string;
  readonly properties: readonly Property[];
  readonly relatedImages: readonly { readonly name: string; readonly image: string }[];
}

interface Csv {
  metadata?: { name?: string; annotations?: Record<string, string>; labels?: Record<string, string> };
  spec?: {
    version?: string;
    replaces?: string;
    skips?: string[];
    displayName?: string;
    description?: string;
    keywords?: string[];
    links?: unknown[];
    maintainers?: unknown[];
    maturity?: string;
    minKubeVersion?: string;
    provider?: unknown;
    installModes?: unknown[];
    customresourcedefinitions?: unknown;
    relatedImages?: { name?: string; image?: string }[];
    install?: {
      spec?: {
        deployments?: {
          spec?: { template?: { spec?: { containers?: { name?: string; image?: string }[] } } };
        }[];
      };
    };
  };
}

interface Crd {
  spec?: { group?: string; names?: { kind?: string }; versions?: { name?: string; served?: boolean }[] };
}

/**
 * Reads one bundle folder (manifests/ and metadata/annotations.yaml); `cwd` makes paths relative in
 * messages. With `bundleObjects`, each CRD is also an `olm.bundle.object` property (its JSON, base64),
 * as opm renders a bundle before the csv-metadata migration: what `bundle validate --previous <catalog>`
 * compares against.
 */
export function readCatalogBundle(cwd: string, dir: string, bundleObjects = false): CatalogBundle {
  const root = join(cwd, dir);
  const shown = relative(cwd, root) || '.';
  const annotationsFile = join(root, 'metadata', 'annotations.yaml');
  if (!existsSync(join(root, 'manifests')) || !existsSync(annotationsFile))
    throw new OpGenError(
      `${shown}: not a bundle folder (manifests/ and metadata/annotations.yaml): run op-gen bundle`,
    );
  const objects = readYamlDir(join(root, 'manifests'), cwd);
  const csvs = objects.filter((o) => o.object.kind === 'ClusterServiceVersion');
  if (csvs.length !== 1)
    throw new OpGenError(
      `${shown}/manifests: ${csvs.length} ClusterServiceVersions; a bundle has exactly one`,
    );
  const csv = csvs[0]!.object as Csv;
  const annotations =
    (readYamlFile(annotationsFile, cwd)[0]?.object as { annotations?: Record<string, string> } | undefined)
      ?.annotations ?? {};
  const pkg = annotations['operators.operatorframework.io.bundle.package.v1'] ?? '';
  const name = csv.metadata?.name ?? '';
  const version = csv.spec?.version ?? '';
  const spec = csv.spec ?? {};

  const gvks = objects
    .filter((o) => o.object.kind === 'CustomResourceDefinition')
    .flatMap((o) => {
      const s = (o.object as Crd).spec ?? {};
      return (s.versions ?? [])
        .filter((v) => v.served !== false)
        .map((v) => ({ group: s.group ?? '', kind: s.names?.kind ?? '', version: v.name ?? '' }));
    })
    .sort((a, b) => `${a.group}/${a.kind}/${a.version}`.localeCompare(`${b.group}/${b.kind}/${b.version}`));
  const metadata = Object.fromEntries(
    Object.entries({
      annotations: csv.metadata?.annotations,
      crdDescriptions: spec.customresourcedefinitions,
      description: spec.description,
      displayName: spec.displayName,
      installModes: spec.installModes,
      keywords: spec.keywords,
      labels: csv.metadata?.labels,
      links: spec.links,
      maintainers: spec.maintainers,
      maturity: spec.maturity,
      minKubeVersion: spec.minKubeVersion,
      provider: spec.provider,
    }).filter(([, v]) => v !== undefined),
  );
  const images = new Map<string, string>();
  for (const r of spec.relatedImages ?? []) if (r.image) images.set(r.image, r.name ?? '');
  for (const d of spec.install?.spec?.deployments ?? [])
    for (const c of d.spec?.template?.spec?.containers ?? [])
      if (c.image && !images.has(c.image)) images.set(c.image, c.name ?? '');
  const skipRange = csv.metadata?.annotations?.['olm.skipRange'];
  const defaultChannel = annotations['operators.operatorframework.io.bundle.channel.default.v1'];
  return {
    dir,
    name,
    package: pkg,
    version,
    channels: (annotations['operators.operatorframework.io.bundle.channels.v1'] ?? '')
      .split(',')
      .map((c) => c.trim())
      .filter((c) => c !== ''),
    ...(defaultChannel ? { defaultChannel } : {}),
    ...(spec.replaces ? { replaces: spec.replaces } : {}),
    skips: spec.skips ?? [],
    ...(skipRange ? { skipRange } : {}),
    properties: [
      { type: 'olm.package', value: { packageName: pkg, version } },
      ...gvks.map((value) => ({ type: 'olm.gvk', value })),
      ...(bundleObjects
        ? objects
            .filter((o) => o.object.kind === 'CustomResourceDefinition')
            .map((o) => ({
              type: 'olm.bundle.object',
              value: { data: Buffer.from(JSON.stringify(o.object)).toString('base64') },
            }))
        : []),
      { type: 'olm.csv.metadata', value: metadata },
    ],
    relatedImages: [...images]
      .map(([image, n]) => ({ name: n, image }))
      .sort((a, b) => a.image.localeCompare(b.image)),
  };
}

/** semver precedence of `x.y.z[-pre]` (build metadata ignored). */
export function compareVersions(a: string, b: string): number {
  const parse = (v: string): { core: number[]; pre: string[] } => {
    const [main = '', pre] = v.split('+')[0]!.split(/-(.*)/s);
    return { core: main.split('.').map(Number), pre: pre ? pre.split('.') : [] };
  };
  const x = parse(a);
  const y = parse(b);
  for (let i = 0; i < 3; i++)
    if ((x.core[i] ?? 0) !== (y.core[i] ?? 0)) return (x.core[i] ?? 0) - (y.core[i] ?? 0);
  if (x.pre.length === 0 || y.pre.length === 0) return y.pre.length - x.pre.length;
  for (let i = 0; i < Math.max(x.pre.length, y.pre.length); i++) {
    const p = x.pre[i];
    const q = y.pre[i];
    if (p === undefined) return -1;
    if (q === undefined) return 1;
    if (p === q) continue;
    const pn = /^\d+$/.test(p);
    const qn = /^\d+$/.test(q);
    if (pn && qn) return Number(p) - Number(q);
    if (pn !== qn) return pn ? -1 : 1;
    return p < q ? -1 : 1;
  }
  return 0;
}

const minorOf = (v: string): string => v.split('.').slice(0, 2).join('.');
const majorOf = (v: string): string => v.split('.')[0] ?? '';

export function bundleBlob(b: CatalogBundle, image: string): BundleBlob {
  return {
    schema: 'olm.bundle',
    name: b.name,
    package: b.package,
    image,
    properties: b.properties,
    relatedImages: [{ name: '', image }, ...b.relatedImages],
  };
}

function entryOf(b: CatalogBundle, edges: { replaces?: string; skips?: readonly string[] }): ChannelEntry {
  const skips = [...new Set([...(edges.skips ?? []), ...b.skips])];
  return {
    name: b.name,
    ...(edges.replaces ? { replaces: edges.replaces } : {}),
    ...(skips.length > 0 ? { skips } : {}),
    ...(b.skipRange ? { skipRange: b.skipRange } : {}),
  };
}

interface SemverTuple {
  readonly bucket: string;
  readonly channel: string;
  readonly bundle: CatalogBundle;
}

/**
 * The edges of opm's semver template (alpha/template/semver linkChannels), keyed `<channel>/<bundle>`:
 * walking each bucket's entries by version, the newest patch of each minor replaces the newest patch of
 * the minor before it and skips every other earlier release of the same major; the other patches get
 * no edge. Nothing links across a major version or a bucket.
 */
function linkSemver(tuples: readonly SemverTuple[]): Map<string, { replaces?: string; skips?: string[] }> {
  const priority = (bucket: string): number =>
    SEMVER_BUCKETS.length - SEMVER_BUCKETS.indexOf(bucket as never);
  const sorted = [...tuples].sort(
    (a, b) => priority(a.bucket) - priority(b.bucket) || compareVersions(a.bundle.version, b.bundle.version),
  );
  const edges = new Map<string, { replaces?: string; skips?: string[] }>();
  const write = (t: SemverTuple, replaces: string, skips: ReadonlySet<string>): void => {
    const rest = [...skips].filter((s) => s !== replaces).sort();
    edges.set(`${t.channel}/${t.bundle.name}`, {
      ...(replaces ? { replaces } : {}),
      ...(rest.length > 0 ? { skips: rest } : {}),
    });
  };
  let prevZMax = '';
  let skips = new Set<string>();
  for (let i = 1; i < sorted.length; i++) {
    const prev = sorted[i - 1]!;
    const cur = sorted[i]!;
    const bucketChange = prev.bucket !== cur.bucket;
    const majorChange = majorOf(prev.bundle.version) !== majorOf(cur.bundle.version);
    const minorChange = minorOf(prev.bundle.version) !== minorOf(cur.bundle.version);
    if (bucketChange || majorChange || minorChange) write(prev, prevZMax, skips);
    if (bucketChange || majorChange) {
      skips = new Set();
      prevZMax = '';
    } else {
      if (minorChange) prevZMax = prev.bundle.name;
      skips.add(prev.bundle.name);
    }
  }
  const last = sorted.at(-1);
  const before = sorted.at(-2);
  if (
    last &&
    before &&
    last.bucket === before.bucket &&
    majorOf(last.bundle.version) === majorOf(before.bundle.version)
  )
    write(last, prevZMax, skips);
  return edges;
}

export interface RenderOptions {
  readonly template: CatalogTemplate;
  /** The bundle image of each release: `{version}` is replaced by the bundle's version. */
  readonly bundleImage: string;
  /** semver: one channel per minor (default) or per major version. */
  readonly granularity?: 'minor' | 'major';
  /** semver, from an opm template: minor and/or major channels (instead of `granularity`). */
  readonly granularities?: readonly ('minor' | 'major')[];
  /** semver with both kinds: which the default channel prefers when both reach the same version. */
  readonly preference?: 'minor' | 'major';
  /** semver, from an opm template: each bundle folder's buckets (instead of its channels annotation). */
  readonly buckets?: ReadonlyMap<string, readonly string[]>;
}

/** The catalog's blobs (package, channels by name, bundles by version), or every problem at once. */
export function renderCatalog(bundles: readonly CatalogBundle[], options: RenderOptions): CatalogBlob[] {
  const problems: string[] = [];
  if (bundles.length === 0) throw new OpGenError('catalog: give at least one bundle folder');
  if (!options.bundleImage.includes('{version}'))
    problems.push(
      `--bundle-image ${options.bundleImage}: it needs {version}, e.g. example.com/my-operator-bundle:v{version}`,
    );
  const packages = [...new Set(bundles.map((b) => b.package))];
  if (packages.length !== 1)
    problems.push(
      `the bundles belong to ${packages.length} packages (${bundles.map((b) => `${b.dir}: ${b.package || '(none)'}`).join(', ')}): a catalog is for one package`,
    );
  const seen = new Map<string, string>();
  for (const b of bundles) {
    const other = seen.get(b.version);
    if (other !== undefined) problems.push(`${b.dir} and ${other} are both version ${b.version}`);
    seen.set(b.version, b.dir);
  }
  const sorted = [...bundles].sort((a, b) => compareVersions(a.version, b.version));
  const pkg = packages[0] ?? '';

  let channels: ChannelBlob[];
  let defaultChannel: string;
  if (options.template === 'basic') {
    const byChannel = new Map<string, CatalogBundle[]>();
    for (const b of sorted) for (const c of b.channels) byChannel.set(c, [...(byChannel.get(c) ?? []), b]);
    channels = [...byChannel.keys()].sort().map((name) => ({
      schema: 'olm.channel',
      package: pkg,
      name,
      entries: byChannel
        .get(name)!
        .map((b) => entryOf(b, { ...(b.replaces ? { replaces: b.replaces } : {}) })),
    }));
    const newest = sorted.at(-1);
    defaultChannel = newest?.defaultChannel ?? newest?.channels[0] ?? '';
  } else {
    const kinds = options.granularities ?? [options.granularity ?? 'minor'];
    const byChannel = new Map<
      string,
      { bucket: string; kind: 'minor' | 'major'; first: string; bundles: CatalogBundle[] }
    >();
    for (const b of sorted) {
      const given = options.buckets?.get(b.dir);
      const buckets = given ?? b.channels.filter((c) => (SEMVER_BUCKETS as readonly string[]).includes(c));
      if (buckets.length === 0)
        problems.push(
          `${b.dir}: channels ${b.channels.join(', ') || '(none)'}: the semver template takes bundles of the candidate, fast and stable channels (opm's semver template): bundle with --channels stable, or use --template basic`,
        );
      for (const bucket of buckets)
        for (const kind of kinds) {
          const key = kind === 'minor' ? minorOf(b.version) : majorOf(b.version);
          const name = `${bucket}-v${key}`;
          const channel = byChannel.get(name) ?? { bucket, kind, first: b.version, bundles: [] };
          channel.bundles.push(b);
          byChannel.set(name, channel);
        }
    }
    // Edges per kind: opm's linkChannels partitions by bucket and kind, so nothing links across them.
    const edges = new Map<string, { replaces?: string; skips?: string[] }>();
    for (const kind of kinds)
      for (const [k, v] of linkSemver(
        [...byChannel.entries()]
          .filter(([, c]) => c.kind === kind)
          .flatMap(([name, { bucket, bundles: members }]) =>
            members.map((b) => ({ bucket, channel: name, bundle: b })),
          ),
      ))
        edges.set(k, v);
    channels = [...byChannel.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, { bundles: members }]) => ({
        schema: 'olm.channel',
        package: pkg,
        name,
        // As opm's semver template: the edges come from the versions alone, not from the CSV.
        entries: members.map((b) => ({ name: b.name, ...edges.get(`${name}/${b.name}`) })),
      }));
    // opm's high-water channel: the most stable bucket, then the channel whose first release is newest,
    // then the preferred kind.
    const preference = options.preference ?? kinds[0];
    const best = SEMVER_BUCKETS.find((bucket) => [...byChannel.values()].some((c) => c.bucket === bucket));
    defaultChannel =
      [...byChannel.entries()]
        .filter(([, c]) => c.bucket === best)
        .sort(
          ([, a], [, b]) =>
            compareVersions(a.first, b.first) ||
            Number(a.kind === preference) - Number(b.kind === preference),
        )
        .at(-1)?.[0] ?? '';
  }
  if (problems.length > 0) throw new ProblemsError(problems.map((text) => ({ text })));
  const packageBlob: PackageBlob = { schema: 'olm.package', name: pkg, defaultChannel };
  return [
    packageBlob,
    ...channels,
    ...sorted.map((b) => bundleBlob(b, options.bundleImage.replaceAll('{version}', b.version))),
  ];
}

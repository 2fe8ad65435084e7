/**
 * File-based catalog (operator-registry's declarative config, "declcfg") objects as `op-gen catalog`
 * writes them, and the rules a catalog must keep: op-gen's own checks of what operator-registry's
 * declcfg validation and model conversion refuse (one package, its default channel exists, every
 * channel entry's bundle exists, one head per channel, no cycle in the upgrade graph, well-formed
 * names, versions and image references, and the olm.deprecations blob's rules of its declcfg-to-model
 * conversion). Every problem names the file and the rule.
 */
import { isDns1123Subdomain } from '../k8s-names/dns.ts';
import { imageReferenceErrors } from '../k8s-names/image-reference.ts';

export interface Property {
  readonly type: string;
  readonly value: unknown;
}

export interface PackageBlob {
  readonly schema: 'olm.package';
  readonly name: string;
  readonly defaultChannel: string;
  readonly description?: string;
}

export interface ChannelEntry {
  readonly name: string;
  readonly replaces?: string;
  readonly skips?: readonly string[];
  readonly skipRange?: string;
}

export interface ChannelBlob {
  readonly schema: 'olm.channel';
  readonly package: string;
  readonly name: string;
  readonly entries: readonly ChannelEntry[];
}

export interface BundleBlob {
  readonly schema: 'olm.bundle';
  readonly name: string;
  readonly package: string;
  readonly image: string;
  readonly properties: readonly Property[];
  readonly relatedImages?: readonly { readonly name: string; readonly image: string }[];
}

/** What an olm.deprecations entry deprecates: the package (no name), a channel or a bundle. */
export interface DeprecationReference {
  readonly schema: 'olm.package' | 'olm.channel' | 'olm.bundle';
  readonly name?: string;
}

export interface DeprecationsBlob {
  readonly schema: 'olm.deprecations';
  readonly package: string;
  readonly entries: readonly { readonly reference: DeprecationReference; readonly message: string }[];
}

export type CatalogBlob = PackageBlob | ChannelBlob | BundleBlob | DeprecationsBlob;

/** The rule ids, in the order they run. */
export const CATALOG_RULES = [
  'catalog-schema',
  'catalog-one-package',
  'catalog-default-channel',
  'catalog-names',
  'catalog-bundle-package',
  'catalog-bundle-image',
  'catalog-entry-bundle',
  'catalog-one-head',
  'catalog-no-cycle',
  'catalog-deprecations',
] as const;
export type CatalogRule = (typeof CATALOG_RULES)[number];

export interface CatalogProblem {
  readonly rule: CatalogRule;
  readonly message: string;
}

const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/;

const isRecord = (v: unknown): v is Record<string, unknown> =>
  !!v && typeof v === 'object' && !Array.isArray(v);

/** Checks the blobs of one catalog file (`file` names it in every message). */
export function validateCatalog(blobs: readonly unknown[], file: string): CatalogProblem[] {
  const problems: CatalogProblem[] = [];
  const report = (rule: CatalogRule, message: string): void =>
    void problems.push({ rule, message: `${file}: [${rule}] ${message}` });

  const packages: PackageBlob[] = [];
  const channels: ChannelBlob[] = [];
  const bundles: BundleBlob[] = [];
  const deprecations: DeprecationsBlob[] = [];
  for (const [i, blob] of blobs.entries()) {
    const schema = isRecord(blob) ? blob.schema : undefined;
    if (schema === 'olm.package') packages.push(blob as unknown as PackageBlob);
    else if (schema === 'olm.channel') channels.push(blob as unknown as ChannelBlob);
    else if (schema === 'olm.bundle') bundles.push(blob as unknown as BundleBlob);
    else if (schema === 'olm.deprecations') deprecations.push(blob as unknown as DeprecationsBlob);
    else
      report(
        'catalog-schema',
        `document ${i + 1} has schema ${JSON.stringify(schema)}: expected olm.package, olm.channel, olm.bundle or olm.deprecations`,
      );
  }

  if (packages.length !== 1)
    report(
      'catalog-one-package',
      `${packages.length} olm.package blobs (${packages.map((p) => p.name).join(', ') || 'none'}): a catalog file holds exactly one package`,
    );
  const pkg = packages[0]?.name ?? '';
  for (const c of channels)
    if (c.package !== pkg)
      report('catalog-one-package', `channel ${c.name} belongs to package ${c.package}, not ${pkg}`);
  for (const b of bundles)
    if (b.package !== pkg)
      report('catalog-one-package', `bundle ${b.name} belongs to package ${b.package}, not ${pkg}`);

  const channelNames = new Set(channels.map((c) => c.name));
  for (const p of packages)
    if (!p.defaultChannel || !channelNames.has(p.defaultChannel))
      report(
        'catalog-default-channel',
        `package ${p.name} names default channel ${JSON.stringify(p.defaultChannel ?? '')}, which is not one of its channels (${[...channelNames].join(', ') || 'none'})`,
      );

  const seenChannels = new Set<string>();
  for (const c of channels) {
    if (!c.name) report('catalog-names', `a channel of package ${pkg} has no name`);
    else if (seenChannels.has(c.name)) report('catalog-names', `channel ${c.name} is defined twice`);
    seenChannels.add(c.name);
  }
  for (const p of packages) if (!p.name) report('catalog-names', 'the olm.package has no name');
  const bundleNames = new Set<string>();
  for (const b of bundles) {
    if (!b.name || !isDns1123Subdomain(b.name))
      report(
        'catalog-names',
        `bundle name ${JSON.stringify(b.name ?? '')} is not a DNS-1123 subdomain (a CSV name)`,
      );
    if (bundleNames.has(b.name)) report('catalog-names', `bundle ${b.name} is defined twice`);
    bundleNames.add(b.name);

    const pkgProps = (b.properties ?? []).filter((p) => p.type === 'olm.package');
    const value = isRecord(pkgProps[0]?.value) ? pkgProps[0].value : undefined;
    if (pkgProps.length !== 1 || !value)
      report('catalog-bundle-package', `bundle ${b.name} needs exactly one olm.package property`);
    else {
      if (value.packageName !== b.package)
        report(
          'catalog-bundle-package',
          `bundle ${b.name}: olm.package property names ${String(value.packageName)}, the bundle's package is ${b.package}`,
        );
      if (typeof value.version !== 'string' || !SEMVER.test(value.version))
        report(
          'catalog-bundle-package',
          `bundle ${b.name}: version ${JSON.stringify(value.version)} is not semver`,
        );
    }

    const imageErrors = imageReferenceErrors(b.image ?? '');
    if (imageErrors.length > 0)
      report(
        'catalog-bundle-image',
        `bundle ${b.name}: image ${JSON.stringify(b.image ?? '')}: ${imageErrors.join('; ')}`,
      );
    for (const r of b.relatedImages ?? []) {
      const errors = imageReferenceErrors(r.image ?? '');
      if (errors.length > 0)
        report(
          'catalog-bundle-image',
          `bundle ${b.name}: related image ${r.name}: ${JSON.stringify(r.image)}: ${errors.join('; ')}`,
        );
    }
  }

  for (const c of channels) {
    const entries = c.entries ?? [];
    if (entries.length === 0) report('catalog-entry-bundle', `channel ${c.name} has no entries`);
    for (const e of entries)
      if (!bundleNames.has(e.name))
        report(
          'catalog-entry-bundle',
          `channel ${c.name}: entry ${e.name} is not a bundle of package ${pkg}`,
        );
    checkGraph(c, report);
  }
  checkDeprecations(deprecations, pkg, seenChannels, bundleNames, report);
  return problems;
}

/**
 * olm.deprecations as operator-registry's declcfg-to-model conversion checks it: at most one per
 * package, for this package; each entry names a schema, is not repeated, refers to the package (no
 * name), an existing channel or an existing bundle, and has a message.
 */
function checkDeprecations(
  deprecations: readonly DeprecationsBlob[],
  pkg: string,
  channels: ReadonlySet<string>,
  bundles: ReadonlySet<string>,
  report: (rule: CatalogRule, message: string) => void,
): void {
  const bad = (message: string): void => report('catalog-deprecations', message);
  if (deprecations.length > 1) bad(`${deprecations.length} olm.deprecations blobs: at most one per package`);
  for (const d of deprecations) {
    if (d.package !== pkg) {
      bad(`olm.deprecations names package ${JSON.stringify(d.package ?? '')}, not this catalog's ${pkg}`);
      continue;
    }
    const seen = new Set<string>();
    for (const [j, e] of (Array.isArray(d.entries) ? d.entries : []).entries()) {
      const ref = isRecord(e?.reference) ? e.reference : undefined;
      const where = `olm.deprecations entry ${j + 1}`;
      if (!ref || typeof ref.schema !== 'string' || ref.schema === '') {
        bad(`${where}: reference.schema is missing (olm.package, olm.channel or olm.bundle)`);
        continue;
      }
      const name = typeof ref.name === 'string' ? ref.name : '';
      const key = `${ref.schema}/${name}`;
      if (seen.has(key)) bad(`${where}: ${ref.schema} ${name} is deprecated twice`);
      seen.add(key);
      if (ref.schema === 'olm.package') {
        if (name !== '')
          bad(`${where}: an olm.package reference has no name (it is package ${pkg}); remove name ${name}`);
      } else if (ref.schema === 'olm.channel') {
        if (!channels.has(name))
          bad(`${where}: channel ${JSON.stringify(name)} is not a channel of package ${pkg}`);
      } else if (ref.schema === 'olm.bundle') {
        if (!bundles.has(name))
          bad(`${where}: bundle ${JSON.stringify(name)} is not a bundle of package ${pkg}`);
      } else bad(`${where}: reference.schema ${ref.schema}: use olm.package, olm.channel or olm.bundle`);
      if (typeof e?.message !== 'string' || e.message.trim() === '')
        bad(`${where}: ${ref.schema} ${name}: message is missing (say what to use instead)`);
    }
  }
}

/** A channel's heads: the entries no other entry replaces or skips, sorted (a valid channel has one). */
export function channelHeads(entries: readonly ChannelEntry[]): string[] {
  const superseded = new Set<string>();
  for (const e of entries) {
    if (e.replaces) superseded.add(e.replaces);
    for (const s of e.skips ?? []) superseded.add(s);
  }
  return [...new Set(entries.map((e) => e.name))].filter((n) => !superseded.has(n)).sort();
}

/** One head (an entry no other entry replaces or skips) and no replaces cycle, per channel. */
function checkGraph(c: ChannelBlob, report: (rule: CatalogRule, message: string) => void): void {
  const entries = c.entries ?? [];
  const heads = channelHeads(entries);
  if (entries.length > 0 && heads.length !== 1)
    report(
      'catalog-one-head',
      heads.length === 0
        ? `channel ${c.name} has no head: every entry is replaced or skipped by another`
        : `channel ${c.name} has ${heads.length} heads (${heads.join(', ')}): every entry but the newest must be replaced or skipped by another`,
    );
  const replaces = new Map(entries.filter((e) => e.replaces).map((e) => [e.name, e.replaces as string]));
  const reported = new Set<string>();
  for (const start of [...replaces.keys()].sort()) {
    const path: string[] = [];
    let at: string | undefined = start;
    while (at !== undefined && !path.includes(at)) {
      path.push(at);
      at = replaces.get(at);
    }
    if (at === undefined) continue;
    const cycle = path.slice(path.indexOf(at));
    const key = [...cycle].sort().join(',');
    if (reported.has(key)) continue;
    reported.add(key);
    report('catalog-no-cycle', `channel ${c.name}: replaces forms a cycle: ${[...cycle, at].join(' -> ')}`);
  }
}

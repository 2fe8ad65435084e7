/**
 * `bundle validate --previous <catalog>`: the previous release's CRDs as a file-based catalog holds
 * them. The release is the head of the package's default channel (or the bundle named by
 * `--previous-bundle`); its CRDs are the CustomResourceDefinitions among its `olm.bundle.object`
 * properties (`data`: a base64 manifest, or `ref`: a file beside the catalog file, as
 * operator-registry's declcfg reads them). A catalog whose bundles carry only `olm.csv.metadata`
 * (opm's migrated form, and `op-gen catalog` without `--bundle-objects`) does not hold the CRDs: that
 * is an error saying so, never an empty previous side.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { crdsFromYaml, type CrdDocument } from '../crd-diff/index.ts';
import { OpGenError } from '../errors.ts';
import { readCatalogFile } from './files.ts';
import { channelHeads, type BundleBlob, type ChannelBlob, type PackageBlob } from './declcfg.ts';

export interface PreviousRelease {
  /** The bundle's name (its CSV's name), for messages. */
  readonly bundle: string;
  readonly crds: readonly CrdDocument[];
}

interface Located<T> {
  readonly blob: T;
  readonly file: string;
}

const CATALOG_FILE = /\.(ya?ml|json)$/;

const isRecord = (v: unknown): v is Record<string, unknown> =>
  !!v && typeof v === 'object' && !Array.isArray(v);

/** The previous release in the catalog at `path` (a file or a folder of catalog files), relative to cwd. */
export function previousFromCatalog(cwd: string, path: string, bundleName?: string): PreviousRelease {
  const full = resolve(cwd, path);
  if (!existsSync(full)) throw new OpGenError(`--previous ${path}: no such file or folder`);
  const files = statSync(full).isDirectory()
    ? readdirSync(full, { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile() && CATALOG_FILE.test(e.name))
        .map((e) => join(e.parentPath, e.name))
        .sort()
    : [full];
  const packages: Located<PackageBlob>[] = [];
  const channels: Located<ChannelBlob>[] = [];
  const bundles: Located<BundleBlob>[] = [];
  for (const file of files) {
    for (const value of readCatalogFile(file, relative(cwd, file) || file)) {
      if (!isRecord(value)) continue;
      if (value.schema === 'olm.package') packages.push({ blob: value as unknown as PackageBlob, file });
      else if (value.schema === 'olm.channel') channels.push({ blob: value as unknown as ChannelBlob, file });
      else if (value.schema === 'olm.bundle') bundles.push({ blob: value as unknown as BundleBlob, file });
    }
  }
  if (bundles.length === 0)
    throw new OpGenError(
      `--previous ${path}: not a bundle folder (no manifests/) and not a file-based catalog (no olm.bundle): give the previous release's bundle folder or catalog`,
    );
  const chosen =
    bundleName === undefined ? head(path, packages, channels, bundles) : named(path, bundleName, bundles);
  return { bundle: chosen.blob.name, crds: crdsOf(cwd, chosen) };
}

function named(path: string, name: string, bundles: readonly Located<BundleBlob>[]): Located<BundleBlob> {
  const found = bundles.filter((b) => b.blob.name === name);
  if (found.length === 1) return found[0]!;
  if (found.length > 1)
    throw new OpGenError(`--previous-bundle ${name}: ${path} holds ${found.length} bundles of that name`);
  throw new OpGenError(
    `--previous-bundle ${name}: ${path} has no such bundle; it has ${bundles
      .map((b) => b.blob.name)
      .sort()
      .join(', ')}`,
  );
}

/** The head of the only package's default channel. */
function head(
  path: string,
  packages: readonly Located<PackageBlob>[],
  channels: readonly Located<ChannelBlob>[],
  bundles: readonly Located<BundleBlob>[],
): Located<BundleBlob> {
  const choose = 'name the previous release with --previous-bundle <bundle name>';
  if (packages.length !== 1)
    throw new OpGenError(
      `--previous ${path}: ${packages.length} olm.package blobs (${packages
        .map((p) => p.blob.name)
        .join(', ')}); ${choose}`,
    );
  const pkg = packages[0]!.blob;
  const channel = channels.find((c) => c.blob.package === pkg.name && c.blob.name === pkg.defaultChannel);
  if (!channel)
    throw new OpGenError(
      `--previous ${path}: package ${pkg.name}'s default channel ${String(pkg.defaultChannel)} is not in the catalog; ${choose}`,
    );
  const heads = channelHeads(channel.blob.entries ?? []);
  if (heads.length !== 1)
    throw new OpGenError(
      `--previous ${path}: channel ${channel.blob.name} has ${heads.length} heads (${heads.join(', ')}); ${choose}`,
    );
  const found = bundles.find((b) => b.blob.package === pkg.name && b.blob.name === heads[0]);
  if (!found)
    throw new OpGenError(
      `--previous ${path}: channel ${channel.blob.name}'s head ${heads[0]!} has no olm.bundle blob; ${choose}`,
    );
  return found;
}

/** The CRDs among a bundle's olm.bundle.object properties, or an error when it carries none. */
function crdsOf(cwd: string, { blob, file }: Located<BundleBlob>): CrdDocument[] {
  const shown = relative(cwd, file) || file;
  const objects = (blob.properties ?? []).filter((p) => p.type === 'olm.bundle.object');
  if (objects.length === 0) {
    const csvOnly = (blob.properties ?? []).some((p) => p.type === 'olm.csv.metadata');
    throw new OpGenError(
      `${shown}: bundle ${blob.name} has no olm.bundle.object properties${
        csvOnly ? ' (only olm.csv.metadata)' : ''
      }, so the catalog does not hold the CRDs that release installed. Give its bundle folder as --previous, ` +
        'or a catalog that carries the bundle objects (op-gen catalog --bundle-objects, or opm render without the csv-metadata migration)',
    );
  }
  const crds: CrdDocument[] = [];
  objects.forEach((p, i) => {
    const where = `${shown}: bundle ${blob.name} olm.bundle.object #${i + 1}`;
    const value = p.value;
    let text: string;
    if (isRecord(value) && typeof value.data === 'string')
      text = Buffer.from(value.data, 'base64').toString('utf8');
    else if (isRecord(value) && typeof value.ref === 'string') {
      const ref = resolve(dirname(file), value.ref);
      if (!existsSync(ref)) throw new OpGenError(`${where}: ref ${value.ref}: no such file`);
      text = readFileSync(ref, 'utf8');
    } else throw new OpGenError(`${where}: its value has neither data (base64) nor ref`);
    crds.push(...crdsFromYaml(text, where));
  });
  const names = new Set<string>();
  for (const crd of crds) {
    if (names.has(crd.metadata.name))
      throw new OpGenError(
        `${shown}: bundle ${blob.name}: CustomResourceDefinition ${crd.metadata.name} is there twice`,
      );
    names.add(crd.metadata.name);
  }
  return crds;
}

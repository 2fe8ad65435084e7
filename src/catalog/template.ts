/**
 * `op-gen catalog --from <template>`: opm's catalog template files as input, read as opm reads them
 * (operator-registry alpha/template/basic and alpha/template/semver). opm renders each bundle image a
 * template names by pulling it; op-gen reads the bundle folders given instead, each folder standing
 * for the image `--bundle-image` makes from its version. Every template image must have its folder
 * and every folder must be in the template: a mismatch is reported, never dropped.
 *
 * - `olm.template.basic`: `entries` of declcfg blobs; its olm.bundle entries carry only `schema` and
 *   `image` (as opm requires) and become the folders' bundles; olm.package, olm.channel,
 *   olm.deprecations (and anything else, for the rules to judge) are kept as written.
 * - `olm.semver`: `candidate`/`fast`/`stable` `bundles: [{ image }]`, `generateMinorChannels` and
 *   `generateMajorChannels` (neither: minor, as opm), `defaultChannelTypePreference`; rendered by
 *   render.ts's semver template with the buckets the template gives.
 */
import { OpGenError } from '../errors.ts';
import { ProblemsError } from '../shared/problems.ts';
import type { CatalogBlob } from './declcfg.ts';
import { readFlagYamlFile } from './files.ts';
import { bundleBlob, compareVersions, renderCatalog, SEMVER_BUCKETS, type CatalogBundle } from './render.ts';

const isRecord = (v: unknown): v is Record<string, unknown> =>
  !!v && typeof v === 'object' && !Array.isArray(v);

/** The catalog an opm template file describes, from the bundle folders standing for its images. */
export function renderFromTemplate(
  cwd: string,
  file: string,
  bundles: readonly CatalogBundle[],
  bundleImage: string,
): CatalogBlob[] {
  const docs = readFlagYamlFile(cwd, '--from', file);
  const template = docs[0];
  if (docs.length !== 1 || !isRecord(template))
    throw new OpGenError(
      `--from ${file}: expected one YAML document, an opm template (olm.template.basic or olm.semver)`,
    );
  if (!bundleImage.includes('{version}'))
    throw new OpGenError(
      `--bundle-image ${bundleImage}: it needs {version}, e.g. example.com/my-operator-bundle:v{version}`,
    );

  const problems: string[] = [];
  const imageOf = (b: CatalogBundle): string => bundleImage.replaceAll('{version}', b.version);
  const byImage = new Map(bundles.map((b) => [imageOf(b), b]));
  const used = new Set<CatalogBundle>();
  const folderOf = (image: unknown, where: string): CatalogBundle | undefined => {
    const b = typeof image === 'string' ? byImage.get(image) : undefined;
    if (!b)
      problems.push(
        `${file}: ${where}: image ${JSON.stringify(image)} is not the --bundle-image of any bundle folder given (${
          [...byImage.keys()].join(', ') || 'none'
        }): give the folder of that release`,
      );
    else used.add(b);
    return b;
  };
  const unused = (): void => {
    for (const b of bundles)
      if (!used.has(b))
        problems.push(
          `${b.dir}: its image ${imageOf(b)} is not in ${file}: add it to the template or leave the folder out`,
        );
  };

  let blobs: CatalogBlob[];
  if (template.schema === 'olm.template.basic') {
    const entries = Array.isArray(template.entries) ? (template.entries as unknown[]) : [];
    if (entries.length === 0) problems.push(`${file}: olm.template.basic has no entries`);
    const kept: CatalogBlob[] = [];
    const rendered: CatalogBundle[] = [];
    entries.forEach((e, i) => {
      if (isRecord(e) && e.schema === 'olm.bundle') {
        const extra = Object.keys(e).filter((k) => k !== 'schema' && k !== 'image');
        if (extra.length > 0)
          problems.push(
            `${file}: entry ${i + 1}: a basic template's olm.bundle has only schema and image (opm renders the rest from the image); remove ${extra.join(', ')}`,
          );
        const b = folderOf(e.image, `entry ${i + 1}`);
        if (b) rendered.push(b);
      } else kept.push(e as CatalogBlob);
    });
    unused();
    const order = (b: CatalogBlob): number =>
      ['olm.package', 'olm.channel', 'olm.bundle', 'olm.deprecations'].indexOf(b.schema) + 1 || 5;
    blobs = [
      ...kept.filter((b) => order(b) < 3),
      ...rendered.sort((a, b) => compareVersions(a.version, b.version)).map((b) => bundleBlob(b, imageOf(b))),
      ...kept.filter((b) => order(b) >= 3),
    ].sort((a, b) => order(a) - order(b));
  } else if (template.schema === 'olm.semver') {
    const buckets = new Map<string, string[]>();
    for (const bucket of SEMVER_BUCKETS) {
      const section = template[bucket];
      const list = isRecord(section) && Array.isArray(section.bundles) ? (section.bundles as unknown[]) : [];
      list.forEach((entry, i) => {
        const b = folderOf(isRecord(entry) ? entry.image : undefined, `${bucket}.bundles[${i}]`);
        if (b) buckets.set(b.dir, [...(buckets.get(b.dir) ?? []), bucket]);
      });
    }
    unused();
    const major = template.generateMajorChannels === true;
    const minor = template.generateMinorChannels === true || !major;
    const kinds = [...(minor ? (['minor'] as const) : []), ...(major ? (['major'] as const) : [])];
    const pref = template.defaultChannelTypePreference;
    if (pref !== undefined && pref !== 'minor' && pref !== 'major')
      problems.push(`${file}: defaultChannelTypePreference ${JSON.stringify(pref)}: use minor or major`);
    else if (pref !== undefined && !kinds.includes(pref))
      problems.push(
        `${file}: defaultChannelTypePreference ${pref} needs generate${pref === 'minor' ? 'Minor' : 'Major'}Channels: true`,
      );
    if (buckets.size === 0 && problems.length === 0) problems.push(`${file}: olm.semver names no bundles`);
    if (problems.length > 0) throw new ProblemsError(problems.map((text) => ({ text })));
    blobs = renderCatalog(
      bundles.filter((b) => buckets.has(b.dir)),
      {
        template: 'semver',
        bundleImage,
        granularities: kinds,
        ...(pref === 'minor' || pref === 'major' ? { preference: pref } : {}),
        buckets,
      },
    );
  } else
    throw new OpGenError(
      `--from ${file}: schema ${JSON.stringify(template.schema)}: op-gen reads opm's olm.template.basic and olm.semver templates`,
    );
  if (problems.length > 0) throw new ProblemsError(problems.map((text) => ({ text })));
  return blobs;
}

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { crdsFromYaml, diffCrds } from '../../../src/crd-diff/index.ts';

/** The CRD pairs crdify's verdicts were recorded on (see tools/crdify-verdicts/). */
export const PAIRS_DIR = fileURLToPath(new URL('../../fixtures/crd-diff/crdify/pairs', import.meta.url));

export interface PairFiles {
  readonly name: string;
  readonly old: string;
  readonly new: string;
}

/** Releases of one CRD compared pairwise, in order: `<dir>/<file>-<release>.json`. */
const SERIES: readonly { name: string; dir: string; file: string; releases: readonly string[] }[] = [
  {
    name: 'cnpg-clusters',
    dir: 'cnpg',
    file: 'clusters',
    releases: ['v1.25.0', 'v1.26.0', 'v1.27.0', 'v1.28.0', 'v1.29.0', 'v1.30.0'],
  },
  {
    name: 'keda-scaledobjects',
    dir: 'keda',
    file: 'scaledobjects',
    releases: ['v2.15.0', 'v2.16.0', 'v2.17.0', 'v2.18.0', 'v2.19.0', 'v2.20.0'],
  },
  {
    name: 'flux-kustomizations',
    dir: 'flux',
    file: 'kustomizations',
    releases: ['v1.4.0', 'v1.5.0', 'v1.6.0', 'v1.7.0', 'v1.8.0', 'v1.9.0'],
  },
];

/** Every pair: each folder's old.yaml → new.yaml, then consecutive releases of each series. */
export function pairFiles(): PairFiles[] {
  const seriesDirs = new Set(SERIES.map((s) => s.dir));
  const folders = readdirSync(PAIRS_DIR)
    .filter((n) => !seriesDirs.has(n) && statSync(join(PAIRS_DIR, n)).isDirectory())
    .sort()
    .map((n) => ({ name: n, old: join(PAIRS_DIR, n, 'old.yaml'), new: join(PAIRS_DIR, n, 'new.yaml') }));
  const releases = SERIES.flatMap((s) =>
    s.releases.slice(1).map((to, i) => ({
      name: `${s.name}-${s.releases[i]}-${to}`,
      old: join(PAIRS_DIR, s.dir, `${s.file}-${s.releases[i]}.json`),
      new: join(PAIRS_DIR, s.dir, `${s.file}-${to}.json`),
    })),
  );
  return [...folders, ...releases];
}

export interface PairVerdict {
  readonly pair: string;
  /** crdify's exit (`fail`: an error) and the validations it reported errors for (`name path`). */
  readonly crdify: { readonly verdict: 'pass' | 'fail'; readonly errors: readonly string[] };
  /** op-gen's verdict (`fail`: a breaking finding) and its non-safe findings (`severity rule path`). */
  readonly opGen: { readonly verdict: 'pass' | 'fail'; readonly findings: readonly string[] };
}

/** `op-gen crd diff old new`, as the table records it (an unreadable file is a `fail` with the error). */
export function opGenVerdict(pair: PairFiles): PairVerdict['opGen'] {
  try {
    const read = (file: string): ReturnType<typeof crdsFromYaml> =>
      crdsFromYaml(readFileSync(file, 'utf8'), file.slice(PAIRS_DIR.length + 1));
    const findings = diffCrds(read(pair.old), read(pair.new));
    return {
      verdict: findings.some((f) => f.severity === 'breaking') ? 'fail' : 'pass',
      findings: findings
        .filter((f) => f.severity !== 'safe')
        .map((f) => `${f.severity} ${f.rule} ${f.version ?? '-'} ${f.path ?? '(crd)'}`),
    };
  } catch (err) {
    return { verdict: 'fail', findings: [`error ${err instanceof Error ? err.message : String(err)}`] };
  }
}

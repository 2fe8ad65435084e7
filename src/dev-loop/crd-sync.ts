import { isDeepStrictEqual } from 'node:util';
import { OpGenError } from '../errors.ts';

/** A generated CRD as the dev loop applies it. */
export interface CrdManifest {
  readonly metadata: { readonly name: string };
  readonly [field: string]: unknown;
}

/** Installs or updates one CRD in the cluster (server-side apply) and waits until it is served. */
export interface CrdApplier {
  apply(crd: CrdManifest): Promise<void>;
}

export interface CrdSyncResult {
  /** CRDs applied in this round: new ones and those whose content changed, by name. */
  readonly applied: readonly string[];
  /** CRDs whose content is what was last applied: not sent again. */
  readonly unchanged: readonly string[];
  /** CRDs applied earlier that the API no longer generates; left in the cluster (deleting one deletes its objects). */
  readonly dropped: readonly string[];
}

/**
 * Keeps the cluster's CRDs in step with the generated ones: the first round applies every CRD, later
 * rounds only those whose content changed since they were last applied. A CRD whose apply failed is
 * sent again next round.
 */
export class CrdSync {
  private readonly applier: CrdApplier;
  private readonly lastApplied = new Map<string, CrdManifest>();

  constructor(applier: CrdApplier) {
    this.applier = applier;
  }

  async sync(crds: readonly CrdManifest[]): Promise<CrdSyncResult> {
    const applied: string[] = [];
    const unchanged: string[] = [];
    const failures: string[] = [];
    for (const crd of crds) {
      const name = crd.metadata.name;
      const previous = this.lastApplied.get(name);
      if (previous !== undefined && isDeepStrictEqual(previous, crd)) {
        unchanged.push(name);
        continue;
      }
      try {
        await this.applier.apply(crd);
        this.lastApplied.set(name, structuredClone(crd));
        applied.push(name);
      } catch (err) {
        this.lastApplied.delete(name);
        failures.push(`${name}: ${(err as Error).message}`);
      }
    }
    const current = new Set(crds.map((c) => c.metadata.name));
    const dropped = [...this.lastApplied.keys()].filter((name) => !current.has(name)).sort();
    for (const name of dropped) this.lastApplied.delete(name);
    if (failures.length > 0) {
      throw new OpGenError(
        `applying ${failures.length} CRD(s) failed${applied.length > 0 ? ` (applied: ${applied.join(', ')})` : ''}:\n${failures.map((f) => `  ${f}`).join('\n')}`,
      );
    }
    return { applied, unchanged, dropped };
  }
}

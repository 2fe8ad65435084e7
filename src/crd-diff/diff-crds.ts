import { isDeepStrictEqual } from 'node:util';
import { compareApiVersions } from '../k8s-names/api-names.ts';
import type { JsonValue } from '../markers/types.ts';
import { diffSchemas, unhandled, type SchemaChange } from './schema-diff.ts';
import type { CrdDocument, CrdDocumentVersion, Finding } from './types.ts';

/**
 * Compares two sets of CRDs, matched by name: per CRD the checks on the whole CRD (scope, removed
 * versions), then per version both sides have the schema checks. Findings come in a stable order:
 * CRDs by name, versions in the new CRD's order, fields by path.
 */
export function diffCrds(oldCrds: readonly CrdDocument[], newCrds: readonly CrdDocument[]): Finding[] {
  const oldByName = new Map(oldCrds.map((c) => [c.metadata.name, c]));
  const newByName = new Map(newCrds.map((c) => [c.metadata.name, c]));
  const names = [...new Set([...oldByName.keys(), ...newByName.keys()])].sort();
  const findings: Finding[] = [];
  for (const name of names) {
    const before = oldByName.get(name);
    const after = newByName.get(name);
    if (before && after) findings.push(...diffCrd(before, after));
    else if (before) {
      findings.push({
        severity: 'breaking',
        rule: 'crdRemoved',
        crd: name,
        message: 'CRD removed (deleting a CRD deletes every object of it)',
      });
    } else {
      findings.push({ severity: 'safe', rule: 'crdAdded', crd: name, message: 'CRD added' });
    }
  }
  return findings;
}

/** The changes between two versions of one CRD. */
export function diffCrd(before: CrdDocument, after: CrdDocument): Finding[] {
  const crd = after.metadata.name;
  const findings: Finding[] = [];
  if (before.spec.scope !== after.spec.scope) {
    findings.push({
      severity: 'breaking',
      rule: 'scope',
      crd,
      message: 'scope changed',
      old: before.spec.scope,
      new: after.spec.scope,
    });
  }
  findings.push(...diffNames(crd, before, after));
  findings.push(...diffConversion(crd, before, after));
  for (const key of unhandledKeys(before.spec, after.spec, SPEC_KEYS)) {
    findings.push({
      crd,
      path: `spec.${key}`,
      ...unhandled(`spec.${key}`, value(before.spec, key), value(after.spec, key)),
    });
  }
  const newVersions = new Map(after.spec.versions.map((v) => [v.name, v]));
  for (const old of before.spec.versions) {
    if (!newVersions.has(old.name))
      findings.push(versionRemoved(crd, old, before.status?.storedVersions?.includes(old.name) === true));
  }
  const oldVersions = new Map(before.spec.versions.map((v) => [v.name, v]));
  // When the old storage version is gone, its removal is the finding; the new storage flag says nothing more.
  const oldStorageKept = before.spec.versions.some((v) => v.storage && newVersions.has(v.name));
  for (const version of after.spec.versions) {
    const old = oldVersions.get(version.name);
    if (!old) {
      findings.push({
        severity: 'safe',
        rule: 'versionAdded',
        crd,
        version: version.name,
        message: 'version added',
      });
      continue;
    }
    if (old.served && !version.served) {
      findings.push({
        severity: 'breaking',
        rule: 'servedVersionRemoval',
        crd,
        version: version.name,
        message: 'version no longer served (clients using it fail)',
        old: 'served',
        new: 'not served',
      });
    }
    const changes: SchemaChange[] = [...diffVersionFields(old, version, oldStorageKept)];
    const oldSchema = old.schema?.openAPIV3Schema;
    const newSchema = version.schema?.openAPIV3Schema;
    if (oldSchema && newSchema) changes.push(...diffSchemas(oldSchema, newSchema));
    else if (oldSchema || newSchema)
      changes.push({
        path: '.',
        ...unhandled(
          'schema.openAPIV3Schema',
          oldSchema ? 'present' : undefined,
          newSchema ? 'present' : undefined,
        ),
      });
    for (const change of changes) findings.push({ crd, version: version.name, ...change });
  }
  findings.push(...diffServedVersions(crd, before, after));
  return findings;
}

/** The fields of `spec` a rule below (or the version loop above) compares. */
const SPEC_KEYS: ReadonlySet<string> = new Set(['group', 'names', 'scope', 'versions', 'conversion']);
/** The fields of a version a rule compares. */
const VERSION_KEYS: ReadonlySet<string> = new Set([
  'name',
  'served',
  'storage',
  'schema',
  'deprecated',
  'deprecationWarning',
  'subresources',
  'additionalPrinterColumns',
  'selectableFields',
]);

function value(record: object, key: string): JsonValue | undefined {
  return (record as Record<string, JsonValue | undefined>)[key];
}

/** The keys outside `known` whose values differ between two records. */
function unhandledKeys(o: object, n: object, known: ReadonlySet<string>): string[] {
  return [...new Set([...Object.keys(o), ...Object.keys(n)])]
    .filter((key) => !known.has(key) && !isDeepStrictEqual(value(o, key), value(n, key)))
    .sort();
}

/**
 * `spec.names`: a new kind breaks every client and manifest; a singular name, short name or category
 * taken away breaks the kubectl commands using it (risky); names added are safe.
 */
function diffNames(crd: string, before: CrdDocument, after: CrdDocument): Finding[] {
  const o = before.spec.names;
  const n = after.spec.names;
  const out: Finding[] = [];
  const at = (key: string): string => `spec.names.${key}`;
  for (const key of ['kind', 'listKind'] as const) {
    const a = value(o, key);
    const b = value(n, key);
    // listKind defaults to <kind>List: only an explicit difference in the effective value counts.
    const effective = (v: JsonValue | undefined, names: typeof o): JsonValue | undefined =>
      key === 'listKind' ? (v ?? `${names.kind}List`) : v;
    if (!isDeepStrictEqual(effective(a, o), effective(b, n)))
      out.push({
        severity: 'breaking',
        rule: 'names',
        crd,
        path: at(key),
        message: `${key} changed`,
        ...pair(a, b),
      });
  }
  const singular = (names: typeof o): JsonValue => value(names, 'singular') ?? names.kind.toLowerCase();
  if (singular(o) !== singular(n))
    out.push({
      severity: 'risky',
      rule: 'names',
      crd,
      path: at('singular'),
      message: 'singular name changed (kubectl commands using the old one fail)',
      old: singular(o),
      new: singular(n),
    });
  for (const key of ['shortNames', 'categories'] as const) {
    const a = stringList(value(o, key));
    const b = stringList(value(n, key));
    const removed = a.filter((x) => !b.includes(x));
    const added = b.filter((x) => !a.includes(x));
    if (removed.length > 0)
      out.push({
        severity: 'risky',
        rule: 'names',
        crd,
        path: at(key),
        message: `${key} removed: ${removed.join(', ')} (kubectl commands using them fail)`,
        old: a,
        new: b,
      });
    else if (added.length > 0)
      out.push({
        severity: 'safe',
        rule: 'names',
        crd,
        path: at(key),
        message: `${key} added: ${added.join(', ')}`,
        old: a,
        new: b,
      });
  }
  for (const key of unhandledKeys(
    o,
    n,
    new Set(['kind', 'listKind', 'plural', 'singular', 'shortNames', 'categories']),
  ))
    out.push({ crd, path: at(key), ...unhandled(at(key), value(o, key), value(n, key)) });
  return out;
}

function stringList(v: JsonValue | undefined): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

function pair(o: JsonValue | undefined, n: JsonValue | undefined): { old?: JsonValue; new?: JsonValue } {
  return { ...(o === undefined ? {} : { old: o }), ...(n === undefined ? {} : { new: n }) };
}

function strategy(crd: CrdDocument): string {
  return crd.spec.conversion?.strategy ?? 'None';
}

/**
 * `spec.conversion`: a new strategy or webhook changes how every object of a version other than the
 * one it is stored in is read and written; whether that is right depends on the webhook (risky).
 */
function diffConversion(crd: string, before: CrdDocument, after: CrdDocument): Finding[] {
  const out: Finding[] = [];
  if (strategy(before) !== strategy(after)) {
    out.push({
      severity: 'risky',
      rule: 'conversion',
      crd,
      path: 'spec.conversion.strategy',
      message:
        strategy(after) === 'Webhook'
          ? 'conversion webhook added: every read in another version than the stored one calls it (it must be deployed first)'
          : 'conversion webhook removed: versions are converted by changing apiVersion only, fields that differ are lost',
      old: strategy(before),
      new: strategy(after),
    });
  } else if (!isDeepStrictEqual(before.spec.conversion?.webhook, after.spec.conversion?.webhook)) {
    out.push({
      severity: 'risky',
      rule: 'conversion',
      crd,
      path: 'spec.conversion.webhook',
      message: 'conversion webhook configuration changed',
      ...pair(before.spec.conversion?.webhook ?? undefined, after.spec.conversion?.webhook ?? undefined),
    });
  }
  const o = before.spec.conversion ?? {};
  const n = after.spec.conversion ?? {};
  for (const key of unhandledKeys(o, n, new Set(['strategy', 'webhook'])))
    out.push({
      crd,
      path: `spec.conversion.${key}`,
      ...unhandled(`spec.conversion.${key}`, value(o, key), value(n, key)),
    });
  return out;
}

/**
 * The fields of one version besides its schema: subresources (status or scale removed is breaking:
 * clients writing /status or /scale fail; added risky: status is no longer written by updates of the
 * object), printer columns (safe: only what kubectl prints), served and deprecated flags, the storage
 * version, selectable fields.
 */
function diffVersionFields(
  o: CrdDocumentVersion,
  n: CrdDocumentVersion,
  oldStorageKept: boolean,
): SchemaChange[] {
  const out: SchemaChange[] = [];
  const at = '.';
  if (!o.served && n.served)
    out.push({
      severity: 'safe',
      rule: 'served',
      path: at,
      message: 'version now served',
      old: false,
      new: true,
    });
  if (o.storage !== n.storage && (o.storage || oldStorageKept))
    out.push({
      severity: 'risky',
      rule: 'storage',
      path: at,
      message: n.storage
        ? 'now the storage version: objects written from now on are stored in it (migrate stored objects before removing the old one)'
        : 'no longer the storage version: keep it until stored objects are migrated',
      old: o.storage,
      new: n.storage,
    });
  if ((o.deprecated === true) !== (n.deprecated === true))
    out.push({
      severity: 'safe',
      rule: 'deprecated',
      path: at,
      message:
        n.deprecated === true ? 'version deprecated (clients get a warning)' : 'version no longer deprecated',
      old: o.deprecated === true,
      new: n.deprecated === true,
    });
  if ((o.deprecationWarning ?? '') !== (n.deprecationWarning ?? ''))
    out.push({
      severity: 'safe',
      rule: 'deprecated',
      path: at,
      message: 'deprecation warning changed',
      ...pair(o.deprecationWarning, n.deprecationWarning),
    });
  const subresources = ['status', 'scale'] as const;
  for (const key of subresources) {
    const a = o.subresources?.[key] as JsonValue | undefined;
    const b = n.subresources?.[key] as JsonValue | undefined;
    if (a === undefined && b === undefined) continue;
    if (a !== undefined && b !== undefined && isDeepStrictEqual(a, b)) continue;
    const message =
      b === undefined
        ? `${key} subresource removed (clients writing /${key} fail)`
        : a === undefined
          ? key === 'status'
            ? 'status subresource added (updates of the object no longer change its status: controllers must write /status)'
            : 'scale subresource added'
          : `${key} subresource changed (autoscalers and kubectl scale read other fields)`;
    out.push({
      severity: b === undefined ? 'breaking' : a === undefined && key === 'scale' ? 'safe' : 'risky',
      rule: 'subresources',
      path: `subresources.${key}`,
      message,
      ...pair(a, b),
    });
  }
  for (const key of unhandledKeys(o.subresources ?? {}, n.subresources ?? {}, new Set(subresources)))
    out.push({
      path: `subresources.${key}`,
      ...unhandled(`subresources.${key}`, value(o.subresources ?? {}, key), value(n.subresources ?? {}, key)),
    });
  const columns = (v: CrdDocumentVersion): JsonValue => (v.additionalPrinterColumns ?? []) as JsonValue;
  if (!isDeepStrictEqual(columns(o), columns(n)))
    out.push({
      severity: 'safe',
      rule: 'printerColumns',
      path: 'additionalPrinterColumns',
      message: 'printer columns changed (what kubectl get prints)',
      old: columns(o),
      new: columns(n),
    });
  const selectable = (v: CrdDocumentVersion): string[] => (v.selectableFields ?? []).map((f) => f.jsonPath);
  const gone = selectable(o).filter((f) => !selectable(n).includes(f));
  const added = selectable(n).filter((f) => !selectable(o).includes(f));
  if (gone.length > 0)
    out.push({
      severity: 'breaking',
      rule: 'selectableFields',
      path: 'selectableFields',
      message: `selectable fields removed: ${gone.join(', ')} (field selectors using them fail)`,
      old: selectable(o),
      new: selectable(n),
    });
  else if (added.length > 0)
    out.push({
      severity: 'safe',
      rule: 'selectableFields',
      path: 'selectableFields',
      message: `selectable fields added: ${added.join(', ')}`,
      old: selectable(o),
      new: selectable(n),
    });
  for (const key of unhandledKeys(o, n, VERSION_KEYS))
    out.push({ path: key, ...unhandled(key, value(o, key), value(n, key)) });
  const schemaO = (o.schema ?? {}) as object;
  const schemaN = (n.schema ?? {}) as object;
  for (const key of unhandledKeys(schemaO, schemaN, new Set(['openAPIV3Schema'])))
    out.push({
      path: `schema.${key}`,
      ...unhandled(`schema.${key}`, value(schemaO, key), value(schemaN, key)),
    });
  return out;
}

/**
 * Versions served together hold the same objects: a field whose type or constraints differ between
 * two served versions is data the conversion must carry, or loses. As crdify's served-version checks:
 * every pair of served versions of the new CRD (the less stable one as "old") is compared with the
 * schema rules; differences the old CRD already had between the same pair are not reported again.
 * Risky when the conversion strategy is None (the API server only rewrites apiVersion), safe when a
 * conversion webhook carries them.
 */
function diffServedVersions(crd: string, before: CrdDocument, after: CrdDocument): Finding[] {
  const known = new Set(servedPairChanges(before).map((c) => changeKey(c)));
  const webhook = strategy(after) === 'Webhook';
  return servedPairChanges(after)
    .filter((c) => !known.has(changeKey(c)))
    .map(({ pair: versions, change }) => ({
      severity: webhook ? 'safe' : 'risky',
      rule: 'servedVersionDifference',
      crd,
      version: versions,
      path: change.path,
      message: `served versions differ (${change.rule}): ${change.message}; ${webhook ? 'the conversion webhook must carry it' : 'conversion is None: the value is lost or refused when read or written through the other version'}`,
      ...pair(change.old, change.new),
    }));
}

interface PairChange {
  readonly pair: string;
  readonly change: SchemaChange;
}

function servedPairChanges(crd: CrdDocument): PairChange[] {
  const served = crd.spec.versions
    .filter((v) => v.served && v.schema?.openAPIV3Schema)
    .sort((a, b) => compareApiVersions(a.name, b.name));
  const out: PairChange[] = [];
  for (let i = 0; i < served.length; i++) {
    for (let j = i + 1; j < served.length; j++) {
      const a = served[i];
      const b = served[j];
      const sa = a?.schema?.openAPIV3Schema;
      const sb = b?.schema?.openAPIV3Schema;
      if (!a || !b || !sa || !sb) continue;
      for (const change of diffSchemas(sa, sb)) {
        // Descriptions differ between versions as a matter of course: no data depends on them.
        if (change.rule === 'description') continue;
        out.push({ pair: `${a.name} -> ${b.name}`, change });
      }
    }
  }
  return out;
}

function changeKey({ pair: versions, change }: PairChange): string {
  return JSON.stringify([
    versions,
    change.path,
    change.rule,
    change.message,
    change.old ?? null,
    change.new ?? null,
  ]);
}

function versionRemoved(crd: string, old: CrdDocumentVersion, listedAsStored: boolean): Finding {
  if (old.storage || listedAsStored) {
    return {
      severity: 'breaking',
      rule: 'storedVersionRemoval',
      crd,
      version: old.name,
      message: old.storage
        ? 'storage version removed (objects stored in it can no longer be read)'
        : "version removed while in the CRD's status.storedVersions (objects stored in it can no longer be read)",
    };
  }
  if (old.served) {
    return {
      severity: 'breaking',
      rule: 'servedVersionRemoval',
      crd,
      version: old.name,
      message: 'served version removed (clients using it fail)',
    };
  }
  // Neither served nor the storage version: objects may still be stored in it if it once was.
  return {
    severity: 'risky',
    rule: 'storedVersionRemoval',
    crd,
    version: old.name,
    message: "unserved version removed: fails if it is still in the CRD's status.storedVersions",
  };
}

import { diffSchemas } from './schema-diff.ts';
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
  const newVersions = new Map(after.spec.versions.map((v) => [v.name, v]));
  for (const old of before.spec.versions) {
    if (!newVersions.has(old.name))
      findings.push(versionRemoved(crd, old, before.status?.storedVersions?.includes(old.name) === true));
  }
  const oldVersions = new Map(before.spec.versions.map((v) => [v.name, v]));
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
    const oldSchema = old.schema?.openAPIV3Schema;
    const newSchema = version.schema?.openAPIV3Schema;
    if (!oldSchema || !newSchema) continue;
    for (const change of diffSchemas(oldSchema, newSchema)) {
      findings.push({ crd, version: version.name, ...change });
    }
  }
  return findings;
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

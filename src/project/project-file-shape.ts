/**
 * The shape checks of `op-gen.yaml`: every field has the type op-gen writes, so a hand-edited or
 * broken file (a value of the wrong kind, a key misspelt) is a list of messages naming each field
 * (`resources[0].namespaced: must be true or false, found string "yes"`), never a crash in a
 * generator and never a wrong artifact (a mapping read as the domain "[object Object]", a
 * misspelt `resources:` read as a project without resources).
 */

import { isApiVersion, isKindName } from '../k8s-names/api-names.ts';
import { dns1123LabelErrors, dns1123SubdomainErrors } from '../k8s-names/dns.ts';
import { describeValue, isMapping } from '../shared/value-shape.ts';

type Check = (value: unknown) => boolean;

interface Field {
  readonly check: Check;
  readonly want: string;
  readonly required?: boolean;
}

const nonEmptyString: Check = (v) => typeof v === 'string' && v.length > 0;
const boolean: Check = (v) => typeof v === 'boolean';

const STRING: Field = { check: nonEmptyString, want: 'a non-empty string' };
/** A string that passes `valid`: the same rules `init` and `create api` apply to what they record. */
const named = (valid: (s: string) => boolean, want: string): Field => ({
  check: (v) => typeof v === 'string' && valid(v),
  want,
  required: true,
});
const DOMAIN = named((s) => dns1123SubdomainErrors(s).length === 0, 'a DNS-1123 subdomain (example.com)');
const LABEL = (example: string): Field =>
  named((s) => dns1123LabelErrors(s).length === 0, `a DNS-1123 label (${example})`);
const VERSION = named(isApiVersion, 'v<N>, v<N>alpha<M> or v<N>beta<M> (v1, v1alpha1)');
const BOOLEAN: Field = { check: boolean, want: 'true or false' };

const TOP: Readonly<Record<string, Field>> = {
  version: { check: (v) => v === 1, want: '1 (the only version of this file)' },
  domain: DOMAIN,
  projectName: LABEL('memcached-operator'),
  repo: STRING,
  apiDir: STRING,
  resources: { check: Array.isArray, want: 'a list' },
  rbac: { check: isMapping, want: 'a mapping' },
  crd: { check: isMapping, want: 'a mapping (generateEmbeddedObjectMeta)' },
  sharding: BOOLEAN,
  scaffold: { check: isMapping, want: 'a mapping (opGenVersion, commands)' },
};

const SCAFFOLD: Readonly<Record<string, Field>> = {
  opGenVersion: { ...STRING, required: true },
  commands: {
    check: (v) =>
      Array.isArray(v) &&
      v.every((c) => Array.isArray(c) && c.length > 0 && c.every((a) => typeof a === 'string')),
    want: 'a list of commands, each a list of its arguments ([init, --domain, example.com])',
    required: true,
  },
};

const RESOURCE: Readonly<Record<string, Field>> = {
  group: LABEL('cache'),
  version: VERSION,
  kind: named(isKindName, 'a PascalCase kind (Memcached)'),
  plural: LABEL('memcacheds'),
  namespaced: { ...BOOLEAN, required: true },
  controller: { ...BOOLEAN, required: true },
  webhooks: { check: isMapping, want: 'a mapping' },
};

const WEBHOOKS: Readonly<Record<string, Field>> = {
  defaulting: BOOLEAN,
  validation: BOOLEAN,
  conversion: BOOLEAN,
  spokes: {
    check: (v) => Array.isArray(v) && v.every((x) => typeof x === 'string' && isApiVersion(x)),
    want: 'a list of versions (v1, v1alpha1)',
  },
};

const RBAC: Readonly<Record<string, Field>> = { roleName: STRING };

const CRD: Readonly<Record<string, Field>> = { generateEmbeddedObjectMeta: BOOLEAN };

/** The problems of one mapping against its fields: wrong types, missing required fields, unknown keys. */
function mappingProblems(
  value: Record<string, unknown>,
  fields: Readonly<Record<string, Field>>,
  path: string,
): string[] {
  const at = (key: string): string => (path ? `${path}.${key}` : key);
  const problems: string[] = [];
  for (const [key, field] of Object.entries(fields)) {
    const v = value[key];
    if (v === undefined || v === null) {
      if (field.required) problems.push(`${at(key)}: missing (must be ${field.want})`);
    } else if (!field.check(v)) {
      problems.push(`${at(key)}: must be ${field.want}, found ${describeValue(v)}`);
    }
  }
  for (const key of Object.keys(value)) {
    if (!(key in fields)) {
      problems.push(`${at(key)}: unknown field (known: ${Object.keys(fields).join(', ')})`);
    }
  }
  return problems;
}

/** Every shape problem of a parsed `op-gen.yaml`, each `path: what is wrong`; empty when it is sound. */
export function projectFileProblems(data: unknown): string[] {
  if (!isMapping(data))
    return [`must be a mapping (domain, projectName, resources, ...), found ${describeValue(data)}`];
  const problems = mappingProblems(data, TOP, '');
  if (isMapping(data.rbac)) problems.push(...mappingProblems(data.rbac, RBAC, 'rbac'));
  if (isMapping(data.crd)) problems.push(...mappingProblems(data.crd, CRD, 'crd'));
  if (isMapping(data.scaffold)) problems.push(...mappingProblems(data.scaffold, SCAFFOLD, 'scaffold'));
  if (!Array.isArray(data.resources)) return problems;
  const seen = new Map<string, number>();
  data.resources.forEach((resource: unknown, i) => {
    const path = `resources[${i}]`;
    if (!isMapping(resource)) {
      problems.push(
        `${path}: must be a mapping (group, version, kind, ...), found ${describeValue(resource)}`,
      );
      return;
    }
    problems.push(...mappingProblems(resource, RESOURCE, path));
    if (isMapping(resource.webhooks)) {
      problems.push(...mappingProblems(resource.webhooks, WEBHOOKS, `${path}.webhooks`));
    }
    const names = [resource.group, resource.version, resource.kind];
    if (!names.every((n) => typeof n === 'string')) return; // reported above as missing or wrong
    const key = names.join('/');
    const first = seen.get(key);
    if (first === undefined) seen.set(key, i);
    else problems.push(`${path}: the same group, version and kind as resources[${first}] (${key})`);
  });
  return problems;
}

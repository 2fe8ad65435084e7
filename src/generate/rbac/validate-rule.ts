import { OpGenError } from '../../errors.ts';
import { isDns1123Label, isDns1123Subdomain } from '../../k8s-names/dns.ts';
import { formatOrigin, type RbacRule } from './rule.ts';

/** The verbs the API server's authorizers and admission plugins act on. */
export const KNOWN_VERBS: readonly string[] = [
  'get',
  'list',
  'watch',
  'create',
  'update',
  'patch',
  'delete',
  'deletecollection',
  // special verbs
  'use',
  'bind',
  'escalate',
  'impersonate',
  'approve',
  'sign',
];

const RESOURCE_SEGMENT_RE = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

export interface ValidateOptions {
  /** Accept `*` in verbs, groups, resources and URLs. */
  readonly allowWildcards: boolean;
}

function fail(rule: RbacRule, message: string): never {
  throw new OpGenError(`${formatOrigin(rule.origin)}: ${rule.origin.source}: ${message}`);
}

function wildcard(rule: RbacRule, field: string, value: string, options: ValidateOptions): void {
  if (options.allowWildcards) return;
  fail(
    rule,
    `wildcard \`${value}\` in ${field} grants more than the operator can be shown to need. ` +
      'List the exact values, or pass --allow-wildcards if you really mean it.',
  );
}

/** Levenshtein distance, for "did you mean" hints. */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      cur[j] = Math.min((prev[j] ?? 0) + 1, (cur[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + cost);
    }
    prev = cur;
  }
  return prev[b.length] ?? 0;
}

export function closest(value: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const d = distance(value.toLowerCase(), c);
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  return bestDistance <= 2 ? best : undefined;
}

function checkVerb(rule: RbacRule, verb: string, options: ValidateOptions): void {
  if (verb === '*') return wildcard(rule, 'verbs', verb, options);
  if (KNOWN_VERBS.includes(verb)) return;
  const hint = closest(verb, KNOWN_VERBS);
  fail(
    rule,
    `unknown verb \`${verb}\`${hint ? ` (did you mean \`${hint}\`?)` : ''}. ` +
      `Known verbs: ${KNOWN_VERBS.join(', ')}.`,
  );
}

function checkGroup(rule: RbacRule, group: string, options: ValidateOptions): void {
  if (group === '' || group === 'core') return;
  if (group === '*') return wildcard(rule, 'groups', group, options);
  if (isDns1123Subdomain(group)) return;
  fail(
    rule,
    `malformed API group \`${group}\`: a group is a lowercase DNS name such as \`apps\` or ` +
      '`cache.example.com`; write `""` or `core` for the core group (pods, services, configmaps...).',
  );
}

function checkResource(rule: RbacRule, resource: string, options: ValidateOptions): void {
  const segments = resource.split('/');
  if (segments.length > 2) {
    fail(rule, `malformed resource \`${resource}\`: write \`<plural>\` or \`<plural>/<subresource>\`.`);
  }
  if (resource !== resource.toLowerCase()) {
    fail(
      rule,
      `resource \`${resource}\` has uppercase letters: resources are lowercase plurals ` +
        `(\`${resource.toLowerCase()}\`), not kinds.`,
    );
  }
  for (const segment of segments) {
    if (segment === '*') {
      wildcard(rule, 'resources', resource, options);
      continue;
    }
    if (!RESOURCE_SEGMENT_RE.test(segment)) {
      fail(
        rule,
        `malformed resource \`${resource}\`: use the lowercase plural, e.g. \`deployments\` or \`pods/log\`.`,
      );
    }
  }
}

function checkUrl(rule: RbacRule, url: string, options: ValidateOptions): void {
  if (!url.startsWith('/') && url !== '*') {
    fail(rule, `non-resource URL \`${url}\` must start with \`/\`, e.g. \`/metrics\`.`);
  }
  if (url.includes('*')) {
    if (url !== '*' && !url.endsWith('*')) {
      fail(rule, `non-resource URL \`${url}\`: \`*\` is only allowed as the last character.`);
    }
    wildcard(rule, 'urls', url, options);
  }
}

/** Throws an OpGenError naming file:line for the first problem in `rule`. */
export function validateRule(rule: RbacRule, options: ValidateOptions): void {
  if (rule.verbs.length === 0) fail(rule, 'no verbs: add `verbs=get;list;watch` (or the verbs you need).');
  for (const verb of rule.verbs) checkVerb(rule, verb, options);
  for (const group of rule.groups) checkGroup(rule, group, options);
  for (const resource of rule.resources) checkResource(rule, resource, options);
  for (const url of rule.urls) checkUrl(rule, url, options);
  for (const name of rule.resourceNames) {
    if (name === '') fail(rule, 'empty entry in resourceNames.');
  }
  if (rule.urls.length > 0) {
    if (rule.groups.length > 0 || rule.resources.length > 0) {
      fail(
        rule,
        'a rule applies either to resources (groups/resources) or to non-resource URLs (urls), not both: ' +
          'split it into two @rbac markers.',
      );
    }
    if (rule.namespace !== undefined) {
      fail(
        rule,
        'non-resource URLs are cluster-wide: they cannot go into a namespaced Role. Drop `namespace`.',
      );
    }
    if (rule.resourceNames.length > 0) fail(rule, '`resourceNames` does not apply to non-resource URLs.');
    return;
  }
  if (rule.resources.length === 0) {
    fail(rule, 'no resources and no urls: add `resources=<plural>` (with `groups=`) or `urls=/path`.');
  }
  if (rule.groups.length === 0) {
    fail(
      rule,
      'resources need `groups=`: write `groups=""` (or `groups=core`) for pods, services, configmaps...',
    );
  }
  if (rule.namespace !== undefined && !isDns1123Label(rule.namespace)) {
    fail(rule, `malformed namespace \`${rule.namespace}\`: a namespace is a lowercase DNS label.`);
  }
  if (rule.roleName !== undefined && !/^[a-z0-9]([-a-z0-9.:]*[a-z0-9])?$/.test(rule.roleName)) {
    fail(rule, `malformed roleName \`${rule.roleName}\`: use a lowercase name such as \`manager-role\`.`);
  }
}

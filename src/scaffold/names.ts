import { OpGenError } from '../errors.ts';
import { isApiVersion, isKindName } from '../k8s-names/api-names.ts';
import { dns1123LabelErrors, dns1123SubdomainErrors } from '../k8s-names/dns.ts';

export { pluralize } from '../k8s-names/pluralize.ts';

/**
 * Validation of the names a user gives `init` and `create api`, and the derived spellings
 * (plural, file names) the templates use. Every check throws an OpGenError that names the flag,
 * the rule and an example of a good value.
 */

function invalid(what: string, value: string, rule: string, example: string): OpGenError {
  return new OpGenError(`invalid ${what} ${JSON.stringify(value)}: ${rule} (for example ${example}).`);
}

/** A project name is a DNS-1123 label: it names the namespace, the Deployment and the image. */
export function validateProjectName(name: string): void {
  if (dns1123LabelErrors(name).length > 0) {
    throw invalid(
      'project name (--name)',
      name,
      'it must be a DNS-1123 label: at most 63 lowercase letters, digits and "-", starting and ending with a letter or digit',
      'memcached-operator',
    );
  }
}

export function validateDomain(domain: string): void {
  if (dns1123SubdomainErrors(domain).length > 0) {
    throw invalid(
      'domain (--domain)',
      domain,
      'it must be a DNS-1123 subdomain: lowercase letters, digits, "-" and "."',
      'example.com',
    );
  }
}

/** The short group (`cache`); with the domain it makes the API group `cache.example.com`. */
export function validateGroup(group: string, domain: string): void {
  if (group.length > 63 || dns1123SubdomainErrors(group).length > 0) {
    throw invalid(
      'group (--group)',
      group,
      'it must be a DNS-1123 subdomain: lowercase letters, digits, "-" and "."',
      'cache',
    );
  }
  if (group.includes('.')) {
    const short = group.endsWith(`.${domain}`) ? group.slice(0, -domain.length - 1) : group.split('.')[0]!;
    throw invalid(
      'group (--group)',
      group,
      `the group is the short name: the domain (${domain}) comes from op-gen.yaml and is appended, ` +
        `so this would make the API group ${group}.${domain}`,
      short || 'cache',
    );
  }
  const full = `${group}.${domain}`;
  if (full.length > 253) {
    throw invalid('group (--group)', group, `the API group ${full} is longer than 253 characters`, 'cache');
  }
}

export function validateVersion(version: string): void {
  if (!isApiVersion(version)) {
    throw invalid(
      'version (--version)',
      version,
      'it must be v<N>, v<N>alpha<M> or v<N>beta<M> with N, M >= 1',
      'v1, v1alpha1, v2beta3',
    );
  }
}

export function validateKind(kind: string): void {
  if (!isKindName(kind)) {
    throw invalid(
      'kind (--kind)',
      kind,
      'it must be PascalCase: an uppercase letter followed by letters and digits, at most 63 characters',
      'Memcached',
    );
  }
}

/** `MemcachedBackup` -> `memcached-backup`: file names and Kubernetes object names. */
export function kebabCase(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1-$2')
    .toLowerCase();
}

/** `MemcachedBackup` -> `memcachedBackup`. */
export function camelCase(name: string): string {
  return name.charAt(0).toLowerCase() + name.slice(1);
}

/** `memcached-operator` -> `MemcachedOperator` (display names). */
export function titleCase(name: string): string {
  return name
    .split(/[-.]/)
    .filter((part) => part.length > 0)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join(' ');
}

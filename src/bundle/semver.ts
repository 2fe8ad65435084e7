/** semver.org 2.0.0, without a leading `v`. */
const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

export function isSemver(value: string): boolean {
  return SEMVER.test(value);
}

/** A range as OLM's olm.skipRange takes it: comparators (`>=1.0.0 <1.2.0`), alternatives with `||`. */
export function isSemverRange(value: string): boolean {
  const alternatives = value.split('||').map((a) => a.trim());
  return alternatives.every((alt) => {
    const comparators = alt.split(/\s+/).filter((c) => c !== '');
    return (
      comparators.length > 0 &&
      comparators.every((c) => /^(>=|<=|>|<|=)?/.test(c) && isSemver(c.replace(/^(>=|<=|>|<|=)/, '')))
    );
  });
}

/** DNS-1123 subdomain: what metadata.name of most objects must be. */
export { isDns1123Subdomain as isDnsSubdomain } from '../k8s-names/dns.ts';

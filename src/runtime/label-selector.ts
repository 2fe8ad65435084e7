/** A label selector as a string (`app=web,tier!=db,env in (a,b),!legacy`) or matchLabels. */
export type LabelSelector = string | Readonly<Record<string, string>>;

type Requirement =
  | { readonly op: 'eq' | 'neq'; readonly key: string; readonly value: string }
  | { readonly op: 'in' | 'notin'; readonly key: string; readonly values: readonly string[] }
  | { readonly op: 'exists' | 'notexists'; readonly key: string };

/** Splits on commas that are not inside parentheses. */
function splitTerms(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of s) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  if (cur.trim() !== '') out.push(cur);
  return out.map((t) => t.trim()).filter((t) => t !== '');
}

export function parseLabelSelector(selector: string): Requirement[] {
  return splitTerms(selector).map((term): Requirement => {
    let m = /^([^\s!=]+)\s+(in|notin)\s+\(([^)]*)\)$/.exec(term);
    if (m) {
      const values = m[3]!
        .split(',')
        .map((v) => v.trim())
        .filter((v) => v !== '');
      return { op: m[2] === 'in' ? 'in' : 'notin', key: m[1]!, values };
    }
    m = /^([^\s!=]+)\s*(==|=|!=)\s*([^\s]*)$/.exec(term);
    if (m) return { op: m[2] === '!=' ? 'neq' : 'eq', key: m[1]!, value: m[3]! };
    m = /^!\s*([^\s!=]+)$/.exec(term);
    if (m) return { op: 'notexists', key: m[1]! };
    if (/^[^\s!=(),]+$/.test(term)) return { op: 'exists', key: term };
    throw new Error(`invalid label selector term "${term}"`);
  });
}

/** A predicate over an object's labels, compiled once. */
export function labelMatcher(
  selector: LabelSelector | undefined,
): (labels: Readonly<Record<string, string>> | undefined) => boolean {
  if (selector === undefined || selector === '') return () => true;
  const reqs: Requirement[] =
    typeof selector === 'string'
      ? parseLabelSelector(selector)
      : Object.entries(selector).map(([key, value]) => ({ op: 'eq', key, value }));
  return (labels) => {
    const l = labels ?? {};
    return reqs.every((r) => {
      const has = Object.hasOwn(l, r.key);
      switch (r.op) {
        case 'eq':
          return has && l[r.key] === r.value;
        case 'neq':
          return !has || l[r.key] !== r.value;
        case 'in':
          return has && r.values.includes(l[r.key]!);
        case 'notin':
          return !has || !r.values.includes(l[r.key]!);
        case 'exists':
          return has;
        case 'notexists':
          return !has;
      }
    });
  };
}

/** The string form for the API server's `labelSelector` query parameter. */
export function labelSelectorString(selector: LabelSelector | undefined): string | undefined {
  if (selector === undefined) return undefined;
  if (typeof selector === 'string') return selector;
  return Object.entries(selector)
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
}

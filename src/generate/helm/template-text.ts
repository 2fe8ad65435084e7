import { toYaml } from '../../shared/yaml.ts';

/**
 * Writes a manifest as a Helm template: the object is emitted as YAML with placeholder strings where
 * template code goes, then each placeholder line becomes that code.
 *
 * - `expr(code)` as a value: `key: {{ code }}` (a scalar).
 * - `block(lines)` as a value: `key:` and then `lines` (template code and YAML, indented below key;
 *   `%INDENT%` in a line is that indentation, for `nindent`).
 */
const MARK = '@@helm:';

export interface Placeholders {
  expr(code: string): string;
  block(lines: readonly string[]): string;
  /** `key: value` as one YAML line, the value's template code when it is an `expr`. */
  line(key: string, value: unknown): string;
  render(object: unknown): string;
}

export function placeholders(): Placeholders {
  const blocks: (readonly string[])[] = [];
  const exprs: string[] = [];
  return {
    expr(code) {
      exprs.push(code);
      return `${MARK}e${exprs.length - 1}@@`;
    },
    block(lines) {
      blocks.push(lines);
      return `${MARK}b${blocks.length - 1}@@`;
    },
    line(key, value) {
      const m = typeof value === 'string' ? /^@@helm:e(\d+)@@$/.exec(value) : null;
      if (m) return `${toYaml({ [key]: 'x' }).split(':')[0] ?? key}: ${exprs[Number(m[1])] ?? ''}`;
      return toYaml({ [key]: value }).trimEnd();
    },
    render(object) {
      const out: string[] = [];
      for (const line of toYaml(object).split('\n')) {
        const m = /^(\s*)(- )?(?:([^:"']*): )?["']?@@helm:([eb])(\d+)@@["']?$/.exec(line);
        if (!m) {
          if (line.includes(MARK)) throw new Error(`internal: placeholder left in ${line}`);
          out.push(line);
          continue;
        }
        const [, indent = '', dash = '', key, type, n] = m;
        const lead = key === undefined ? `${indent}${dash}` : `${indent}${dash}${key}: `;
        if (type === 'e') {
          out.push(`${lead}${exprs[Number(n)] ?? ''}`);
        } else {
          out.push(`${indent}${dash}${key}:`);
          const inner = ' '.repeat(indent.length + dash.length + 2);
          for (const l of blocks[Number(n)] ?? [])
            out.push(l === '' ? '' : `${inner}${l.replaceAll('%INDENT%', String(inner.length))}`);
        }
      }
      return out.join('\n');
    },
  };
}

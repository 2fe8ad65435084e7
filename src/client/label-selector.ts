import { labelKeyErrors, labelValueErrors } from '../k8s-names/dns.ts';

/**
 * Label selectors as k8s.io/apimachinery/pkg/labels parses, validates, matches and prints them
 * (`labels.Parse`, `ValidatedSelectorFromSet`, `Selector.Matches`, `Selector.String`): what the API
 * server accepts, op-gen accepts; what it rejects, op-gen rejects with the same reason.
 */

export type SelectorOperator = '=' | '==' | '!=' | 'in' | 'notin' | 'exists' | '!' | '>' | '<';

export interface Requirement {
  readonly key: string;
  readonly operator: SelectorOperator;
  /** Sorted, without duplicates; one value for `=`, `==`, `!=`, `>`, `<`; none for `exists`, `!`. */
  readonly values: readonly string[];
}

export class LabelSelectorError extends Error {
  override readonly name = 'LabelSelectorError';
}

type Token =
  'error' | 'end' | ')' | ',' | '!' | '==' | '=' | '>' | 'identifier' | 'in' | '<' | '!=' | 'notin' | '(';

interface Scanned {
  readonly tok: Token;
  readonly literal: string;
}

const KEYWORDS: ReadonlyMap<string, Token> = new Map<string, Token>([
  [')', ')'],
  [',', ','],
  ['!', '!'],
  ['==', '=='],
  ['=', '='],
  ['>', '>'],
  ['in', 'in'],
  ['<', '<'],
  ['!=', '!='],
  ['notin', 'notin'],
  ['(', '('],
]);

const isWhitespace = (ch: string): boolean => ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n';
const isSpecial = (ch: string): boolean => '=!(),><'.includes(ch);

/** The lexer of apimachinery: identifiers run until whitespace or a special symbol. */
function scan(input: string): Scanned[] {
  const out: Scanned[] = [];
  let pos = 0;
  for (;;) {
    while (pos < input.length && isWhitespace(input[pos]!)) pos++;
    if (pos >= input.length) {
      out.push({ tok: 'end', literal: '' });
      return out;
    }
    if (isSpecial(input[pos]!)) {
      let buffer = '';
      let last: Scanned | undefined;
      while (pos < input.length && isSpecial(input[pos]!)) {
        buffer += input[pos];
        const tok = KEYWORDS.get(buffer);
        if (tok !== undefined) last = { tok, literal: buffer };
        else if (last !== undefined) break;
        pos++;
      }
      if (last === undefined) {
        out.push({ tok: 'error', literal: `error expected: keyword found '${buffer}'` });
        return out.concat({ tok: 'end', literal: '' });
      }
      out.push(last);
      continue;
    }
    let word = '';
    while (pos < input.length && !isSpecial(input[pos]!) && !isWhitespace(input[pos]!)) word += input[pos++];
    const keyword = KEYWORDS.get(word);
    out.push({ tok: keyword ?? 'identifier', literal: word });
  }
}

const BINARY_OPERATORS = ['in', 'notin', '=', '==', '!=', 'gt', 'lt'].join(', ');

class Parser {
  private position = 0;
  private readonly items: Scanned[];

  constructor(input: string) {
    this.items = scan(input);
  }

  /** In a value position `in` and `notin` are identifiers (`x in (in)`). */
  private lookahead(values: boolean): Scanned {
    const item = this.items[this.position]!;
    return values && (item.tok === 'in' || item.tok === 'notin')
      ? { tok: 'identifier', literal: item.literal }
      : item;
  }

  private consume(values: boolean): Scanned {
    const item = this.lookahead(values);
    this.position++;
    return item;
  }

  parse(): Requirement[] {
    const requirements: Requirement[] = [];
    for (;;) {
      const { tok, literal } = this.lookahead(true);
      if (tok === 'end') return requirements;
      if (tok !== 'identifier' && tok !== '!') {
        throw new LabelSelectorError(`found '${literal}', expected: !, identifier, or 'end of string'`);
      }
      requirements.push(this.requirement());
      const next = this.consume(true);
      if (next.tok === 'end') return requirements;
      if (next.tok !== ',')
        throw new LabelSelectorError(`found '${next.literal}', expected: ',' or 'end of string'`);
      const after = this.lookahead(true);
      if (after.tok !== 'identifier' && after.tok !== '!') {
        throw new LabelSelectorError(`found '${after.literal}', expected: identifier after ','`);
      }
    }
  }

  private requirement(): Requirement {
    try {
      let { tok, literal } = this.consume(true);
      let negated = false;
      if (tok === '!') {
        negated = true;
        ({ tok, literal } = this.consume(true));
      }
      if (tok !== 'identifier') throw new LabelSelectorError(`found '${literal}', expected: identifier`);
      const key = literal;
      const keyErrors = labelKeyErrors(key);
      if (keyErrors.length > 0) throw invalid('key', key, keyErrors);
      // `!key` takes no operator: `!x=a` fails on the `=` after the requirement, as in apimachinery.
      if (negated) return newRequirement(key, '!', []);
      const next = this.lookahead(true).tok;
      if (next === 'end' || next === ',') return newRequirement(key, 'exists', []);
      const operator = this.operator();
      const values = operator === 'in' || operator === 'notin' ? this.valueSet() : this.exactValue();
      return newRequirement(key, operator, values);
    } catch (err) {
      if (err instanceof LabelSelectorError) {
        throw new LabelSelectorError(`unable to parse requirement: ${err.message}`);
      }
      throw err;
    }
  }

  private operator(): SelectorOperator {
    const { tok, literal } = this.consume(false);
    switch (tok) {
      case 'in':
      case 'notin':
      case '=':
      case '==':
      case '!=':
      case '>':
      case '<':
        return tok;
      default:
        throw new LabelSelectorError(`found '${literal}', expected: ${BINARY_OPERATORS}`);
    }
  }

  /** `(a,b)`; `()` and empty entries are the empty value, as apimachinery reads them. */
  private valueSet(): string[] {
    const open = this.consume(true);
    if (open.tok !== '(') throw new LabelSelectorError(`found '${open.literal}' expected: '('`);
    const first = this.lookahead(true);
    if (first.tok === ')') {
      this.consume(true);
      return [''];
    }
    if (first.tok !== 'identifier' && first.tok !== ',') {
      throw new LabelSelectorError(`found '${first.literal}', expected: ',', ')' or identifier`);
    }
    const values = new Set<string>();
    for (;;) {
      const { tok, literal } = this.consume(true);
      if (tok === 'identifier') {
        values.add(literal);
        const next = this.lookahead(true);
        if (next.tok === ',') continue;
        if (next.tok === ')') break;
        throw new LabelSelectorError(`found '${next.literal}', expected: ',' or ')'`);
      } else if (tok === ',') {
        if (values.size === 0) values.add('');
        const next = this.lookahead(true).tok;
        if (next === ')') {
          values.add('');
          break;
        }
        if (next === ',') values.add('');
      } else {
        throw new LabelSelectorError(`found '${literal}', expected: ',', or identifier`);
      }
    }
    const close = this.consume(true);
    if (close.tok !== ')') throw new LabelSelectorError(`found '${first.literal}', expected: ')'`);
    return [...values];
  }

  private exactValue(): string[] {
    const next = this.lookahead(true).tok;
    if (next === 'end' || next === ',') return [''];
    const { tok, literal } = this.consume(true);
    if (tok === 'identifier') return [literal];
    throw new LabelSelectorError(`found '${literal}', expected: identifier`);
  }
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** strconv.ParseInt(value, 10, 64) succeeds. */
function isInt64(value: string): boolean {
  if (!/^[-+]?\d+$/.test(value)) return false;
  const n = BigInt(value);
  return n >= INT64_MIN && n <= INT64_MAX;
}

function invalid(field: string, value: string, errors: readonly string[]): LabelSelectorError {
  return new LabelSelectorError(`${field}: Invalid value: ${JSON.stringify(value)}: ${errors.join('; ')}`);
}

/** apimachinery's NewRequirement: the operator's arity, integers for `>`/`<`, valid values. */
function newRequirement(key: string, operator: SelectorOperator, values: string[]): Requirement {
  const errors: string[] = [];
  if ((operator === '>' || operator === '<') && !values.every(isInt64)) {
    errors.push(
      `values: Invalid value: ${JSON.stringify(values[0])}: for 'Gt', 'Lt' operators, the value must be an integer`,
    );
  }
  for (const v of values) {
    const valueErrors = labelValueErrors(v);
    if (valueErrors.length > 0) errors.push(invalid(`values[${key}]`, v, valueErrors).message);
  }
  if (errors.length > 0) throw new LabelSelectorError(errors.join(', '));
  return { key, operator, values: [...new Set(values)].sort() };
}

/** labels.Parse: the requirements sorted by key, or a LabelSelectorError saying why not. */
export function parseSelector(selector: string): Requirement[] {
  const requirements = new Parser(selector).parse();
  return requirements.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** labels.ValidatedSelectorFromSet: `key=value` for each entry, validated, sorted by key. */
export function selectorFromSet(set: Readonly<Record<string, string>>): Requirement[] {
  return Object.keys(set)
    .sort()
    .map((key) => {
      const keyErrors = labelKeyErrors(key);
      if (keyErrors.length > 0) throw invalid('key', key, keyErrors);
      return newRequirement(key, '=', [set[key]!]);
    });
}

/** Selector.String: the form the API server's `labelSelector` parameter takes. */
export function selectorString(requirements: readonly Requirement[]): string {
  return requirements.map(requirementString).join(',');
}

function requirementString(r: Requirement): string {
  switch (r.operator) {
    case 'exists':
      return r.key;
    case '!':
      return `!${r.key}`;
    case 'in':
    case 'notin':
      return `${r.key} ${r.operator} (${r.values.join(',')})`;
    default:
      return `${r.key}${r.operator}${r.values[0]}`;
  }
}

/** Selector.Matches: every requirement holds for the labels. */
export function selectorMatches(
  requirements: readonly Requirement[],
  labels: Readonly<Record<string, string>> | undefined,
): boolean {
  const l = labels ?? {};
  return requirements.every((r) => {
    const has = Object.hasOwn(l, r.key);
    const value = has ? l[r.key]! : undefined;
    switch (r.operator) {
      case '=':
      case '==':
      case 'in':
        return value !== undefined && r.values.includes(value);
      case '!=':
      case 'notin':
        return value === undefined || !r.values.includes(value);
      case 'exists':
        return has;
      case '!':
        return !has;
      case '>':
      case '<': {
        if (value === undefined || !isInt64(value)) return false;
        const actual = BigInt(value);
        const wanted = BigInt(r.values[0]!);
        return r.operator === '>' ? actual > wanted : actual < wanted;
      }
    }
  });
}

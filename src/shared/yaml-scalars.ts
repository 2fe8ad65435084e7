/**
 * Plain YAML scalars as Kubernetes reads them: sigs.k8s.io/yaml over go-yaml v2 (go.yaml.in/yaml/v2
 * resolve.go), which resolves YAML 1.1 scalars (`yes`/`on`/`y` booleans, `0755` octal, `1_000`,
 * `0b101`), keeps timestamps and sexagesimal numbers as strings, and then converts the value to JSON
 * (so `.inf`/`.nan` are refused, and map keys become strings in Go's spelling).
 * tools/go-yaml-verdicts records go-yaml's verdicts; test/unit/shared/yaml-go-verdicts.test.ts holds
 * op-gen's readers to them.
 */

/** What go-yaml makes of a plain scalar: its kind and JavaScript value, or why Kubernetes refuses it. */
export type GoScalar =
  | { readonly kind: 'null'; readonly value: null }
  | { readonly kind: 'bool'; readonly value: boolean }
  | { readonly kind: 'int'; readonly value: number; readonly exact: bigint }
  | { readonly kind: 'float'; readonly value: number }
  | { readonly kind: 'str'; readonly value: string };

const BOOLS = new Map<string, boolean>([
  ...['y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON'].map((s) => [s, true] as const),
  ...['n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF'].map(
    (s) => [s, false] as const,
  ),
]);
const NULLS = new Set(['', '~', 'null', 'Null', 'NULL']);
const NON_FINITE = new Map<string, number>([
  ...['.nan', '.NaN', '.NAN'].map((s) => [s, Number.NaN] as const),
  ...['.inf', '.Inf', '.INF', '+.inf', '+.Inf', '+.INF'].map((s) => [s, Infinity] as const),
  ...['-.inf', '-.Inf', '-.INF'].map((s) => [s, -Infinity] as const),
]);
/** go-yaml's yamlStyleFloat. */
const YAML_STYLE_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
/** strconv.ParseInt(s, 0, 64)'s syntax: sign, then a base prefix (0x, 0o, 0b, or 0 for octal). */
const GO_INT = /^([+-]?)(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)$/;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;

/** Infinity or NaN: sigs.k8s.io/yaml cannot write them as JSON, so Kubernetes refuses the file. */
export interface NonFinite {
  readonly kind: 'nonFinite';
  readonly value: number;
}

/** go-yaml's resolve() for a plain (untagged, unquoted) scalar. */
export function goPlainScalar(text: string): GoScalar | NonFinite {
  const first = text.charCodeAt(0);
  // go-yaml's hint table: only scalars starting with these can be anything but a string.
  if (text !== '' && !/^[-+0-9.yYnNtTfFoO~]/.test(text)) return { kind: 'str', value: text };
  const bool = BOOLS.get(text);
  if (bool !== undefined) return { kind: 'bool', value: bool };
  if (NULLS.has(text)) return { kind: 'null', value: null };
  const nonFinite = NON_FINITE.get(text);
  if (nonFinite !== undefined) return { kind: 'nonFinite', value: nonFinite };
  if (first === 0x2e /* . */) {
    return /^\.[0-9]+([eE][-+]?[0-9]+)?$/.test(text) && Number.isFinite(Number(text))
      ? { kind: 'float', value: Number(text) }
      : { kind: 'str', value: text };
  }
  if (!/^[-+0-9]/.test(text)) return { kind: 'str', value: text };
  // A timestamp (YYYY-...) stays the string it was when read into an interface{}.
  if (/^[0-9]{4}-/.test(text)) return { kind: 'str', value: text };
  const plain = text.replaceAll('_', '');
  const exact = goInt(plain);
  if (exact !== undefined) return { kind: 'int', value: Number(exact), exact };
  if (YAML_STYLE_FLOAT.test(plain)) {
    const value = Number(plain);
    // strconv.ParseFloat refuses what overflows a float64 (ErrRange): then it stays a string.
    if (Number.isFinite(value)) return { kind: 'float', value };
  }
  return { kind: 'str', value: text };
}

/** strconv.ParseInt(s, 0, 64), then ParseUint(s, 0, 64) (no sign), as go-yaml tries them. */
function goInt(plain: string): bigint | undefined {
  const m = GO_INT.exec(plain);
  if (!m) return undefined;
  const sign = m[1] ?? '';
  const digits = m[2] ?? '';
  let magnitude: bigint;
  if (/^0[xX]/.test(digits)) magnitude = BigInt(`0x${digits.slice(2)}`);
  else if (/^0[oO]/.test(digits)) magnitude = BigInt(`0o${digits.slice(2)}`);
  else if (/^0[bB]/.test(digits)) magnitude = BigInt(`0b${digits.slice(2)}`);
  else if (digits.length > 1 && digits.startsWith('0')) magnitude = BigInt(`0o${digits.slice(1)}`);
  else magnitude = BigInt(digits);
  const value = sign === '-' ? -magnitude : magnitude;
  if (value >= INT64_MIN && value <= INT64_MAX) return value;
  if (sign === '' && value <= UINT64_MAX) return value;
  return undefined;
}

/**
 * A map key as sigs.k8s.io/yaml turns it into a JSON property name: ints in decimal, floats as Go's
 * FormatFloat(f, 'g', -1, 32) spells them (`1e+06`), booleans `true`/`false`; undefined for keys it
 * refuses (null, and integers only an unsigned 64-bit int holds).
 */
export function goMapKey(scalar: GoScalar | NonFinite): string | undefined {
  switch (scalar.kind) {
    case 'str':
      return scalar.value;
    case 'bool':
      return String(scalar.value);
    case 'int':
      return scalar.exact > INT64_MAX ? undefined : scalar.exact.toString();
    case 'float':
    case 'nonFinite':
      return goFloat32G(scalar.value);
    case 'null':
      return undefined;
  }
}

/** Go's strconv.FormatFloat(f, 'g', -1, 32), with go-yaml's spellings of infinity and NaN. */
export function goFloat32G(value: number): string {
  if (Number.isNaN(value)) return '.nan';
  if (value === Infinity) return '.inf';
  if (value === -Infinity) return '-.inf';
  const f = Math.fround(value);
  if (f === 0) return Object.is(f, -0) ? '-0' : '0';
  // The shortest decimal that reads back as the same float32.
  let digits = 1;
  while (digits < 9 && Math.fround(Number(f.toPrecision(digits))) !== f) digits++;
  const [mantissa = '', exp = '0'] = f.toExponential(digits - 1).split('e');
  const exponent = Number(exp);
  if (exponent < -4 || exponent >= 6) {
    const e = Math.abs(exponent).toString().padStart(2, '0');
    return `${mantissa}e${exponent < 0 ? '-' : '+'}${e}`;
  }
  const text = f.toFixed(Math.max(0, digits - 1 - exponent));
  return text;
}

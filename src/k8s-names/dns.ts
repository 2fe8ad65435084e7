/**
 * The name checks of k8s.io/apimachinery/pkg/util/validation (IsDNS1123Label, IsDNS1123Subdomain,
 * IsDNS1035Label) and pkg/api/validate/content (IsLabelKey, IsLabelValue), with their messages: each
 * returns the list of problems, empty when the value is valid.
 */

const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1035_LABEL_FMT = '[a-z]([-a-z0-9]*[a-z0-9])?';
const LABEL_KEY_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const LABEL_VALUE_FMT = `(${LABEL_KEY_FMT})?`;

const DNS1123_LABEL = new RegExp(`^${DNS1123_LABEL_FMT}$`);
const DNS1123_SUBDOMAIN = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`);
const DNS1035_LABEL = new RegExp(`^${DNS1035_LABEL_FMT}$`);
const LABEL_KEY_NAME = new RegExp(`^${LABEL_KEY_FMT}$`);
const LABEL_VALUE = new RegExp(`^${LABEL_VALUE_FMT}$`);

export const DNS1123_LABEL_MAX_LENGTH = 63;
export const DNS1123_SUBDOMAIN_MAX_LENGTH = 253;
export const DNS1035_LABEL_MAX_LENGTH = 63;

/** Go measures length in bytes. */
function byteLength(value: string): number {
  return Buffer.byteLength(value, 'utf8');
}

function maxLenError(length: number, unit: 'characters' | 'bytes' = 'characters'): string {
  return `must be no more than ${length} ${unit}`;
}

function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  // apimachinery's RegexError joins the examples with " or " after "', " (two spaces), as here.
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${fmt}')`;
}

/** A DNS (RFC 1123) label: namespaces, most object names that become host names, project names. */
export function dns1123LabelErrors(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_LABEL_MAX_LENGTH) errs.push(maxLenError(DNS1123_LABEL_MAX_LENGTH));
  if (!DNS1123_LABEL.test(value)) {
    errs.push(
      DNS1123_SUBDOMAIN.test(value)
        ? 'must not contain dots'
        : regexError(
            'a lowercase RFC 1123 label must consist of lower case alphanumeric characters or ' +
              "'-', and must start and end with an alphanumeric character",
            DNS1123_LABEL_FMT,
            'my-name',
            '123-abc',
          ),
    );
  }
  return errs;
}

/** A DNS (RFC 1123) subdomain: metadata.name of most objects, API groups, label key prefixes. */
export function dns1123SubdomainErrors(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1123_SUBDOMAIN_MAX_LENGTH) errs.push(maxLenError(DNS1123_SUBDOMAIN_MAX_LENGTH));
  if (!DNS1123_SUBDOMAIN.test(value)) {
    errs.push(
      regexError(
        'a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, ' +
          "'-' or '.', and must start and end with an alphanumeric character",
        DNS1123_SUBDOMAIN_FMT,
        'example.com',
      ),
    );
  }
  return errs;
}

/** A DNS (RFC 1035) label: resource (plural) and singular names, Service names. */
export function dns1035LabelErrors(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > DNS1035_LABEL_MAX_LENGTH) errs.push(maxLenError(DNS1035_LABEL_MAX_LENGTH));
  if (!DNS1035_LABEL.test(value)) {
    errs.push(
      regexError(
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with " +
          'an alphabetic character, and end with an alphanumeric character',
        DNS1035_LABEL_FMT,
        'my-name',
        'abc-123',
      ),
    );
  }
  return errs;
}

export const isDns1123Label = (value: string): boolean => dns1123LabelErrors(value).length === 0;
export const isDns1123Subdomain = (value: string): boolean => dns1123SubdomainErrors(value).length === 0;
export const isDns1035Label = (value: string): boolean => dns1035LabelErrors(value).length === 0;

const LABEL_KEY_MSG =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

/** A label (or annotation) key: an optional DNS subdomain prefix and `/`, then a name. */
export function labelKeyErrors(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split('/');
  if (parts.length > 2) {
    return [
      `a valid label key ${regexError(LABEL_KEY_MSG, LABEL_KEY_FMT, 'MyName', 'my.name', '123-abc')}` +
        " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  const name = parts.length === 2 ? parts[1]! : parts[0]!;
  if (parts.length === 2) {
    const prefix = parts[0]!;
    if (prefix === '') errs.push('prefix part must be non-empty');
    else errs.push(...dns1123SubdomainErrors(prefix).map((e) => `prefix part ${e}`));
  }
  if (name === '') errs.push('name part must be non-empty');
  else if (byteLength(name) > 63) errs.push(`name part ${maxLenError(63, 'bytes')}`);
  if (!LABEL_KEY_NAME.test(name)) {
    errs.push(`name part ${regexError(LABEL_KEY_MSG, LABEL_KEY_FMT, 'MyName', 'my.name', '123-abc')}`);
  }
  return errs;
}

/** A label value: empty, or at most 63 alphanumerics, `-`, `_`, `.` starting and ending alphanumeric. */
export function labelValueErrors(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 63) errs.push(maxLenError(63, 'bytes'));
  if (!LABEL_VALUE.test(value)) {
    errs.push(
      regexError(
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', " +
          'and must start and end with an alphanumeric character',
        LABEL_VALUE_FMT,
        'MyValue',
        'my_value',
        '12345',
      ),
    );
  }
  return errs;
}

/** Text for one Markdown table cell: pipes escaped, line breaks as <br>, never empty. */
export function cell(text: string): string {
  const t = text.trim().replace(/\|/g, '\\|').replace(/\r?\n/g, '<br>');
  return t === '' ? ' ' : t;
}

/** Prose from a doc comment: a `<` that could open an HTML tag is escaped, the rest kept as written. */
export function prose(text: string): string {
  return text.replace(/<(?=[A-Za-z/!?])/g, '&lt;');
}

/** Inline code that survives backticks inside (a longer fence). */
export function code(text: string): string {
  const fence = text.includes('`') ? '``' : '`';
  const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${text}${pad}${fence}`;
}

/** A fenced block whose fence is longer than any run of backticks in `text`. */
export function fenced(lang: string, text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${lang}\n${text.replace(/\n+$/, '')}\n${fence}`;
}

/** A description as a Markdown paragraph. */
export function paragraph(text: string): string {
  return prose(text.trim());
}

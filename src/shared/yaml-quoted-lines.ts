/**
 * Go's YAML reader (go-yaml, which sigs.k8s.io/yaml and so kubectl and the API server use) accepts a
 * single- or double-quoted scalar whose continuation lines are indented no more than the key it is
 * the value of:
 *
 *     description: "Condition contains details for one aspect of the current
 *     state of this API Resource."
 *
 * The `yaml` package follows the YAML 1.2 rule that they must be indented more, and refuses
 * (`Missing closing "quote`). Continuation lines of a quoted scalar lose their leading white space
 * when the lines are folded, so indenting them changes no value: this gives the text with each such
 * line indented one column past the line the scalar starts on, or undefined when there is nothing
 * to change or the text is not one go-yaml reads either (an unterminated quote, a document marker
 * inside the scalar).
 */
export function indentQuotedContinuations(text: string): string | undefined {
  const lines = text.split('\n');
  let changed = false;
  /** Inside a quoted scalar that continues on the next line: its quote and the least indentation. */
  let open: { quote: '"' | "'"; minIndent: number } | undefined;
  /** Inside a block scalar (`|`, `>`): the indentation of its header's line. */
  let blockIndent: number | undefined;
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i] ?? '';
    const indent = leadingSpaces(line);
    if (open) {
      if (/^(---|\.\.\.)(\s|$)/.test(line)) return undefined;
      if (line.trim() !== '' && indent < open.minIndent) {
        line = ' '.repeat(open.minIndent - indent) + line;
        lines[i] = line;
        changed = true;
      }
      const end = closingQuote(line, 0, open.quote);
      if (end === undefined) continue;
      open = undefined;
      const rest = scanLine(line, end + 1);
      if (rest.open) open = { quote: rest.open, minIndent: indent + 1 };
      if (rest.block) blockIndent = indent;
      continue;
    }
    if (blockIndent !== undefined) {
      if (line.trim() === '' || indent > blockIndent) continue;
      blockIndent = undefined;
    }
    const state = scanLine(line, indent);
    if (state.open) open = { quote: state.open, minIndent: indent + 1 };
    if (state.block) blockIndent = indent;
  }
  return changed && !open ? lines.join('\n') : undefined;
}

function leadingSpaces(line: string): number {
  let n = 0;
  while (line[n] === ' ') n++;
  return n;
}

/** The offset of the quote closing a scalar whose content starts at `from`, or undefined. */
function closingQuote(line: string, from: number, quote: '"' | "'"): number | undefined {
  for (let j = from; j < line.length; j++) {
    const c = line[j];
    if (quote === '"' && c === '\\') {
      j++;
      continue;
    }
    if (c !== quote) continue;
    if (quote === "'" && line[j + 1] === "'") {
      j++;
      continue;
    }
    return j;
  }
  return undefined;
}

/**
 * Reads one line of block YAML from `at`, token by token as far as it matters here: sequence dashes,
 * keys, quoted scalars (which may stay open at the end of the line), block scalar headers, comments,
 * plain scalars and flow collections.
 */
function scanLine(line: string, at: number): { open?: '"' | "'"; block?: boolean } {
  let j = at;
  /** Whether a value may start here (a quote here opens a quoted scalar). */
  let tokenStart = true;
  while (j < line.length) {
    const c = line[j];
    if (c === ' ' || c === '\t') {
      j++;
      continue;
    }
    if (c === '#') return {};
    if (tokenStart && c === '-' && /[\s]/.test(line[j + 1] ?? ' ')) {
      j++;
      continue;
    }
    if (tokenStart && (c === '"' || c === "'")) {
      const end = closingQuote(line, j + 1, c);
      if (end === undefined) return { open: c };
      j = end + 1;
      tokenStart = false;
      continue;
    }
    if (tokenStart && (c === '|' || c === '>') && /^[|>][-+0-9]*\s*(#.*)?$/.test(line.slice(j)))
      return { block: true };
    if (c === '[' || c === '{' || c === ',') {
      j++;
      tokenStart = true;
      continue;
    }
    if (c === ':' && /\s/.test(line[j + 1] ?? ' ')) {
      j++;
      tokenStart = true;
      continue;
    }
    if (tokenStart && (c === '&' || c === '!' || c === '*')) {
      // An anchor, tag or alias: a value may still follow it.
      while (j < line.length && !/\s/.test(line[j] ?? ' ')) j++;
      continue;
    }
    // A plain scalar (or flow punctuation): up to the next `: `, ` #` or flow indicator.
    tokenStart = false;
    j++;
    while (j < line.length) {
      const d = line[j];
      if (d === ':' && /\s/.test(line[j + 1] ?? ' ')) break;
      if (d === '#' && /\s/.test(line[j - 1] ?? ' ')) return {};
      if (d === ',' || d === ']' || d === '}' || d === '[' || d === '{') break;
      j++;
    }
  }
  return {};
}

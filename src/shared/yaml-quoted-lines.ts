/**
 * Go's YAML reader (go-yaml, which sigs.k8s.io/yaml and so kubectl and the API server use) accepts a
 * single- or double-quoted scalar, or a flow collection (`{...}`, `[...]`), whose continuation lines
 * are indented no more than the key it is the value of:
 *
 *     description: "Condition contains details for one aspect of the current
 *     state of this API Resource."
 *
 * The `yaml` package follows the YAML 1.2 rule that they must be indented more, and refuses
 * (`Missing closing "quote`). Continuation lines of a quoted scalar or a flow collection lose their
 * leading white space (folding), so indenting them changes no value: this gives the text with each
 * such line indented one column past the line the value starts on, or undefined when there is
 * nothing to change or the text is not one go-yaml reads either (an unterminated quote or
 * collection, a document marker inside one).
 */
export function indentQuotedContinuations(text: string): string | undefined {
  const lines = text.split('\n');
  let changed = false;
  /** Inside a value continued on the next line: an open quote and/or flow collections, and the least indentation. */
  let open: (FlowState & { minIndent: number }) | undefined;
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
      const state = scanLine(line, 0, open);
      open = isOpen(state) ? { ...state, minIndent: open.minIndent } : undefined;
      if (state.block) blockIndent = indent;
      continue;
    }
    if (blockIndent !== undefined) {
      if (line.trim() === '' || indent > blockIndent) continue;
      blockIndent = undefined;
    }
    const state = scanLine(line, indent, { depth: 0 });
    if (isOpen(state)) open = { ...state, minIndent: indent + 1 };
    if (state.block) blockIndent = indent;
  }
  return changed && !open ? lines.join('\n') : undefined;
}

interface FlowState {
  /** The quote of a scalar still open at the end of the line. */
  readonly quote?: '"' | "'";
  /** How many flow collections are open at the end of the line. */
  readonly depth: number;
  /** The line ends in a block scalar header. */
  readonly block?: boolean;
}

function isOpen(state: FlowState): boolean {
  return state.quote !== undefined || state.depth > 0;
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
 * Reads one line of YAML from `at`, starting in `state` (a quote or flow collections left open by
 * the lines before), token by token as far as it matters here: sequence dashes, keys, quoted
 * scalars, flow collections, block scalar headers, comments and plain scalars.
 */
function scanLine(line: string, at: number, state: FlowState): FlowState {
  let j = at;
  let depth = state.depth;
  if (state.quote) {
    const end = closingQuote(line, j, state.quote);
    if (end === undefined) return { quote: state.quote, depth };
    j = end + 1;
  }
  /** Whether a value may start here (a quote here opens a quoted scalar). */
  let tokenStart = state.quote === undefined;
  while (j < line.length) {
    const c = line[j];
    if (c === ' ' || c === '\t') {
      j++;
      continue;
    }
    if (c === '#') return { depth };
    if (tokenStart && depth === 0 && c === '-' && /\s/.test(line[j + 1] ?? ' ')) {
      j++;
      continue;
    }
    if (tokenStart && (c === '"' || c === "'")) {
      const end = closingQuote(line, j + 1, c);
      if (end === undefined) return { quote: c, depth };
      j = end + 1;
      tokenStart = false;
      continue;
    }
    if (
      tokenStart &&
      depth === 0 &&
      (c === '|' || c === '>') &&
      /^[|>][-+0-9]*\s*(#.*)?$/.test(line.slice(j))
    )
      return { depth, block: true };
    if (c === '[' || c === '{') {
      if (!tokenStart && depth === 0) {
        // Inside a plain scalar (`a[0]`): not a collection.
        j++;
        continue;
      }
      depth++;
      j++;
      tokenStart = true;
      continue;
    }
    if (depth > 0 && (c === ']' || c === '}')) {
      depth--;
      j++;
      tokenStart = false;
      continue;
    }
    if (depth > 0 && c === ',') {
      j++;
      tokenStart = true;
      continue;
    }
    if (c === ':' && /[\s,\]}]/.test(line[j + 1] ?? ' ')) {
      j++;
      tokenStart = true;
      continue;
    }
    if (tokenStart && (c === '&' || c === '!' || c === '*')) {
      // An anchor, tag or alias: a value may still follow it.
      while (j < line.length && !/[\s,\]}]/.test(line[j] ?? ' ')) j++;
      continue;
    }
    // A plain scalar: up to the next `: `, ` #`, or (in a flow collection) a flow indicator.
    tokenStart = false;
    j++;
    while (j < line.length) {
      const d = line[j];
      if (d === ':' && /[\s,\]}]/.test(line[j + 1] ?? ' ')) break;
      if (d === '#' && /\s/.test(line[j - 1] ?? ' ')) return { depth };
      if (depth > 0 && (d === ',' || d === ']' || d === '}' || d === '[' || d === '{')) break;
      j++;
    }
  }
  return { depth };
}

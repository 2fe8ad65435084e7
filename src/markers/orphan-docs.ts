/**
 * Doc comments TypeScript attaches to no declaration: a `/** ... *\/` comment that follows code on
 * its own line (`size?: int32; /** @maximum 3 *\/ other?: int32;`, `{ /** @minimum 1 *\/ x: number }`)
 * is a trailing comment of that code, and one followed by nothing but `}` or the end of the file
 * documents nothing. Markers written there are read by no generator; both CRD front ends report
 * them (the same lexical rule, so they agree).
 */
export interface OrphanDocComment {
  /** 1-based line where the comment starts. */
  readonly line: number;
  /** Offset of the comment's `/**`. */
  readonly offset: number;
  /** The `@tags` in it, without `@`, in order. */
  readonly tags: readonly string[];
}

/** A doc comment not yet known to be followed by a declaration. */
interface PendingDoc {
  readonly start: number;
  readonly line: number;
  readonly trailing: boolean;
  readonly tags: string[];
}

/** A `@tag` in a doc comment (at its start, after white space or a `*`). */
const TAG = /(?:^|[\s*])@([A-Za-z][\w:.-]*)/g;

export function orphanDocComments(text: string): OrphanDocComment[] {
  const out: OrphanDocComment[] = [];
  let line = 1;
  let codeOnLine = false;
  let i = 0;
  const n = text.length;
  /** The doc comments not yet known to be followed by a declaration. */
  let pending: PendingDoc[] = [];
  // Character codes: \n 10, \t 9, \r 13, space 32, / 47, * 42, ' 39, " 34, ` 96, \\ 92.
  while (i < n) {
    const ch = text.charCodeAt(i);
    if (ch === 10) {
      line++;
      codeOnLine = false;
      i++;
      continue;
    }
    if (ch === 32 || ch === 9 || ch === 13) {
      i++;
      continue;
    }
    if (ch === 47 && text.charCodeAt(i + 1) === 47) {
      while (i < n && text.charCodeAt(i) !== 10) i++;
      continue;
    }
    if (ch === 47 && text.charCodeAt(i + 1) === 42) {
      const end = text.indexOf('*/', i + 2);
      const stop = end < 0 ? n : end + 2;
      const body = text.slice(i, stop);
      if (body.startsWith('/**') && body !== '/**/') {
        const tags = [...body.matchAll(TAG)].map((m) => m[1] ?? '');
        pending.push({ start: i, line, trailing: codeOnLine, tags });
      }
      for (let j = i; j < stop; j++) if (text.charCodeAt(j) === 10) line++;
      i = stop;
      continue;
    }
    // Code: the comments before it either document it or are trailing comments of the code before.
    // (Most code has none pending: no call, no allocation.)
    if (pending.length > 0) {
      settle(pending, ch, out);
      pending = [];
    }
    codeOnLine = true;
    if (ch === 39 || ch === 34 || ch === 96) {
      i++;
      while (i < n && text.charCodeAt(i) !== ch) {
        const c = text.charCodeAt(i);
        if (c === 92) i++;
        else if (c === 10) line++;
        i++;
      }
      i++;
      continue;
    }
    i++;
  }
  settle(pending, -1, out);
  return out;
}

/**
 * The pending comments that document nothing go to `out`: trailing comments of code, and those
 * `next` (the code character after them; `}` is 125, -1 the end of the file) shows end a block.
 */
function settle(pending: readonly PendingDoc[], next: number, out: OrphanDocComment[]): void {
  for (let i = 0; i < pending.length; i++) {
    const c = pending[i]!;
    if (c.trailing || next === -1 || next === 125)
      if (c.tags.length > 0) out.push({ line: c.line, offset: c.start, tags: c.tags });
  }
}

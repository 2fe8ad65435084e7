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

export function orphanDocComments(text: string): OrphanDocComment[] {
  const out: OrphanDocComment[] = [];
  let line = 1;
  let codeOnLine = false;
  let i = 0;
  const n = text.length;
  /** The doc comments not yet known to be followed by a declaration. */
  let pending: { start: number; line: number; trailing: boolean; tags: string[] }[] = [];
  const settle = (next: string | undefined): void => {
    for (const c of pending) {
      if (c.trailing || next === undefined || next === '}')
        if (c.tags.length > 0) out.push({ line: c.line, offset: c.start, tags: c.tags });
    }
    pending = [];
  };
  while (i < n) {
    const ch = text[i] ?? '';
    if (ch === '\n') {
      line++;
      codeOnLine = false;
      i++;
      continue;
    }
    if (ch === ' ' || ch === '\t' || ch === '\r') {
      i++;
      continue;
    }
    if (ch === '/' && text[i + 1] === '/') {
      while (i < n && text[i] !== '\n') i++;
      continue;
    }
    if (ch === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      const stop = end < 0 ? n : end + 2;
      const body = text.slice(i, stop);
      if (body.startsWith('/**') && body !== '/**/') {
        const tags = [...body.matchAll(/(?:^|[\s*])@([A-Za-z][\w:.-]*)/g)].map((m) => m[1] ?? '');
        pending.push({ start: i, line, trailing: codeOnLine, tags });
      }
      for (let j = i; j < stop; j++) if (text[j] === '\n') line++;
      i = stop;
      continue;
    }
    // Code: the comments before it either document it or are trailing comments of the code before.
    settle(ch);
    codeOnLine = true;
    if (ch === "'" || ch === '"' || ch === '`') {
      i++;
      while (i < n && text[i] !== ch) {
        if (text[i] === '\\') i++;
        else if (text[i] === '\n') line++;
        i++;
      }
      i++;
      continue;
    }
    i++;
  }
  settle(undefined);
  return out;
}

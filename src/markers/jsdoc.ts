import type { RawTag } from './types.ts';

/** A doc comment split into its description and its tags. */
export interface DocComment {
  /** The text before the first tag: paragraphs kept, lines joined with `\n`, trimmed. */
  readonly description: string;
  readonly tags: readonly RawTag[];
  /**
   * `@word`s in the middle of a line (after a space, outside backticks): not tags, but a registry can
   * tell the user when one is a marker written where JSDoc does not read it.
   */
  readonly inline: readonly { readonly name: string; readonly line: number }[];
  /**
   * Lines that are controller-gen (Go) markers (`+kubebuilder:validation:Minimum=0`, `+optional`),
   * without the `+`: neither description nor part of the tag above; the caller reports them.
   */
  readonly goForm: readonly { readonly text: string; readonly line: number }[];
}

export interface DocCommentOptions {
  /** Whether a comment line (trimmed) is a controller-gen marker line; none is without this. */
  readonly isGoFormLine?: (line: string) => boolean;
}

const INLINE_TAG = /(?:^|\s)@([A-Za-z][\w:.-]*)/g;

const TAG_LINE = /^@([A-Za-z][\w:.-]*)(?:\s+|$)/;

// Patterns used per comment and per line, made once (a regular expression literal in a function
// makes a new object each time it runs).
const OPEN = /^\/\*\*/;
const CLOSE = /\*\/$/;
const LINE_PREFIX = /^\s*\*? ?/;
const TRAILING_SPACE = /\s+$/;
const BACKTICKED = /`[^`]*`/g;
const QUOTED = /"(?:[^"\\]|\\.)*"/g;
const BLANK_RUNS = /\n{3,}/g;

/**
 * Splits a `/** ... *\/` comment into description and tags. `startLine` is the 1-based line of the
 * comment's first line in its file, so each tag knows its own line. Inside tags, `*\/` stands for star-slash. A tag starts only at the
 * beginning of a line: `@` inside text (e.g. `jsonPath=.x[?(@.type=="Ready")]`) is not a tag.
 */
export function parseDocComment(
  comment: string,
  startLine: number,
  options: DocCommentOptions = {},
): DocComment {
  return oneLineDoc(comment) ?? parseDocCommentLines(comment, startLine, options);
}

/**
 * A comment on one line without `@` or `+` (`/** The port to listen on. *\/`, most field docs of
 * an API): no tag, no inline marker, no Go-form line, so its text is its description. What
 * `parseDocCommentLines` makes of it, without splitting it into lines (a unit test holds the two to
 * the same result).
 */
function oneLineDoc(comment: string): DocComment | undefined {
  if (comment.includes('\n') || comment.includes('@') || comment.includes('+')) return undefined;
  const text = comment
    .replace(OPEN, '')
    .replace(CLOSE, '')
    .replace(LINE_PREFIX, '')
    .replace(TRAILING_SPACE, '')
    .trim();
  // As normaliseDescription: a line `---` ends the description.
  return { description: text === '---' ? '' : text, tags: [], inline: [], goForm: [] };
}

/** parseDocComment for any comment, line by line (exported for the test of `oneLineDoc`). */
export function parseDocCommentLines(
  comment: string,
  startLine: number,
  options: DocCommentOptions = {},
): DocComment {
  const body = comment.replace(OPEN, '').replace(CLOSE, '');
  const lines = body.split('\n');
  const description: string[] = [];
  const tags: { name: string; text: string[]; line: number }[] = [];
  const inline: { name: string; line: number }[] = [];
  const goForm: { text: string; line: number }[] = [];
  let inFence = false;
  let afterGoForm = false;
  lines.forEach((rawLine, index) => {
    const line = rawLine.replace(LINE_PREFIX, '').replace(TRAILING_SPACE, '');
    const trimmed = line.trim();
    if (trimmed.startsWith('```')) inFence = !inFence;
    if (!inFence && trimmed.startsWith('+') && options.isGoFormLine?.(trimmed)) {
      goForm.push({ text: trimmed.slice(1), line: startLine + index });
      afterGoForm = true;
      return;
    }
    const match = inFence ? null : TAG_LINE.exec(trimmed);
    if (!inFence && trimmed.includes('@')) {
      const rest = (match ? trimmed.slice(match[0].length) : trimmed)
        .replace(BACKTICKED, '')
        .replace(QUOTED, '');
      for (const m of rest.matchAll(INLINE_TAG)) inline.push({ name: m[1] ?? '', line: startLine + index });
    }
    if (match) {
      afterGoForm = false;
      tags.push({ name: match[1] ?? '', text: [trimmed.slice(match[0].length)], line: startLine + index });
    } else if (afterGoForm) {
      // Text after a Go-form marker line belongs to neither the tag above nor the description.
    } else if (tags.length > 0) {
      tags[tags.length - 1]?.text.push(trimmed);
    } else {
      description.push(line);
    }
  });
  return {
    description: normaliseDescription(description),
    // `*/` cannot appear inside a comment: `*\/` stands for it (e.g. in a @pattern).
    tags: tags.map((t) => ({
      name: t.name,
      text: t.text.join('\n').trim().replaceAll('*\\/', '*/'),
      line: t.line,
    })),
    inline,
    goForm,
  };
}

function normaliseDescription(lines: readonly string[]): string {
  // As controller-gen: a line `---` ends the description (notes for code readers may follow).
  const cut = lines.findIndex((l) => l.trim() === '---');
  const kept = cut < 0 ? lines : lines.slice(0, cut);
  // Keep paragraphs, drop runs of blank lines and leading/trailing blank lines.
  return kept.join('\n').replace(BLANK_RUNS, '\n\n').trim();
}

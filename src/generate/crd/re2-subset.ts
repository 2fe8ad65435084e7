/**
 * Whether a pattern is written in a small subset of regular-expression syntax that Go's RE2 (the API
 * server's dialect) accepts: then the pattern needs no compiling to be known valid, and re2js (a
 * quarter of a megabyte of code, 10 ms of a small API's `generate crd`) is not loaded for it. The
 * subset is what CRD patterns are mostly made of: printable ASCII, literals, `.`, `^`, `$`, escapes
 * of punctuation and `\d \w \s \D \W \S \b \B`, classes of literals and ranges, `(...)` and
 * `(?:...)` groups, `|`, and `* + ? {n} {n,} {n,m}` (optionally lazy) after something repeatable.
 * Anything else (flags, `\p`, `\z`, POSIX classes, backreferences, lookarounds, large counts) is
 * not in the subset: the caller compiles it with re2js, which says whether RE2 accepts it. So a
 * `false` here means "not known", never "invalid"; a `true` must mean RE2 accepts it (a property
 * test holds this against re2js).
 */
export function inRe2Subset(pattern: string): boolean {
  if (pattern.length > MAX_LENGTH) return false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern.charCodeAt(i);
    if (c < 0x20 || c > 0x7e) return false;
  }
  return new SubsetParser(pattern).whole();
}

/** Longer patterns are left to re2js (RE2 limits a program's size). */
const MAX_LENGTH = 512;
/** Counts above this are left to re2js (RE2 allows 1000, and limits nested repeats' product). */
const MAX_COUNT = 100;
/** Nesting of groups above this is left to re2js. */
const MAX_DEPTH = 50;

/** Characters with a meaning outside a class (a literal is any other printable character). */
const SPECIAL = new Set(['(', ')', '[', ']', '{', '}', '|', '*', '+', '?', '.', '^', '$', '\\']);
/** Escapes of a character class that RE2 and Perl share. */
const CLASS_ESCAPES = new Set(['d', 'D', 'w', 'W', 's', 'S']);
/** `{n}`, `{n,}`, `{n,m}` where a quantifier may be. */
const COUNT = /\{([0-9]{1,3})(,([0-9]{1,3})?)?\}/y;
/** What `#classChar` read: a `\d`-like escape (no range may start or end with it). */
const ESCAPE = 'escape';

function isAlnum(ch: string): boolean {
  const c = ch.charCodeAt(0);
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
}

/** What an atom is to a quantifier after it. */
type Atom = 'repeatable' | 'anchor' | 'counted-group' | 'invalid';

class SubsetParser {
  readonly #p: string;
  #i = 0;
  /** Counted repeats (`{n,m}`) read inside the group being read. */
  #counted = 0;

  constructor(pattern: string) {
    this.#p = pattern;
  }

  whole(): boolean {
    return this.#alternation(0) && this.#i === this.#p.length;
  }

  #alternation(depth: number): boolean {
    if (depth > MAX_DEPTH || !this.#sequence(depth)) return false;
    while (this.#p[this.#i] === '|') {
      this.#i++;
      if (!this.#sequence(depth)) return false;
    }
    return true;
  }

  /** Atoms, each with an optional quantifier, up to `|`, `)` or the end. */
  #sequence(depth: number): boolean {
    for (;;) {
      const ch = this.#p[this.#i];
      if (ch === undefined || ch === '|' || ch === ')') return true;
      const atom = this.#atom(ch, depth);
      if (atom === 'invalid' || !this.#quantifier(atom)) return false;
    }
  }

  /**
   * One atom, `ch` its first character. `anchor`: no quantifier may follow (`^`, `$`, `\b`, `()`);
   * `counted-group`: a group holding a counted repeat (no counted repeat may follow).
   */
  #atom(ch: string, depth: number): Atom {
    this.#i++;
    switch (ch) {
      case '(':
        return this.#group(depth);
      case '[':
        return this.#class() ? 'repeatable' : 'invalid';
      case '.':
        return 'repeatable';
      case '^':
      case '$':
        return 'anchor';
      case '\\': {
        const next = this.#p[this.#i];
        if (next === undefined) return 'invalid';
        this.#i++;
        if (CLASS_ESCAPES.has(next)) return 'repeatable';
        if (next === 'b' || next === 'B') return 'anchor';
        // RE2 reads an escaped punctuation character as itself.
        return isAlnum(next) ? 'invalid' : 'repeatable';
      }
      default:
        return SPECIAL.has(ch) ? 'invalid' : 'repeatable';
    }
  }

  /** A group after its `(`: `(...)` or `(?:...)`. */
  #group(depth: number): Atom {
    if (this.#p[this.#i] === '?') {
      if (this.#p[this.#i + 1] !== ':') return 'invalid';
      this.#i += 2;
    }
    const start = this.#i;
    const outer = this.#counted;
    this.#counted = 0;
    if (!this.#alternation(depth + 1) || this.#p[this.#i] !== ')') return 'invalid';
    const inner = this.#counted;
    this.#counted = outer + inner;
    const empty = this.#i === start;
    this.#i++;
    if (empty) return 'anchor';
    return inner > 0 ? 'counted-group' : 'repeatable';
  }

  /** An optional quantifier after an atom: only after a repeatable one, and one (lazy or not). */
  #quantifier(atom: Atom): boolean {
    const ch = this.#p[this.#i];
    if (ch !== '*' && ch !== '+' && ch !== '?' && ch !== '{') return true;
    if (atom === 'anchor') return false;
    if (ch === '{') {
      // A counted repeat of a group holding one is left to re2js (RE2 limits their product).
      if (atom === 'counted-group' || !this.#count()) return false;
      this.#counted++;
    } else this.#i++;
    if (this.#p[this.#i] === '?') this.#i++;
    // A second quantifier (`a**`) is then read as an atom, which it cannot be.
    return true;
  }

  /** `{n}`, `{n,}` or `{n,m}` with n ≤ m ≤ MAX_COUNT. */
  #count(): boolean {
    COUNT.lastIndex = this.#i;
    const match = COUNT.exec(this.#p);
    if (!match) return false;
    const min = Number(match[1]);
    const max = match[3] === undefined ? min : Number(match[3]);
    if (min > MAX_COUNT || max > MAX_COUNT || min > max) return false;
    this.#i += match[0].length;
    return true;
  }

  /** A class after its `[`: literals, escapes and ranges of two literals up to `]`, not empty. */
  #class(): boolean {
    if (this.#p[this.#i] === '^') this.#i++;
    let items = 0;
    for (;;) {
      const ch = this.#p[this.#i];
      if (ch === undefined || ch === '[') return false;
      if (ch === ']') {
        this.#i++;
        return items > 0;
      }
      items++;
      if (ch === '-') {
        // A `-` of its own only first or last.
        if (items > 1 && this.#p[this.#i + 1] !== ']') return false;
        this.#i++;
        continue;
      }
      const lo = this.#classChar();
      if (lo === undefined) return false;
      if (this.#p[this.#i] === '-' && this.#p[this.#i + 1] !== ']') {
        this.#i++;
        const hi = this.#classChar();
        if (lo === ESCAPE || hi === undefined || hi === ESCAPE) return false;
        if (hi.charCodeAt(0) < lo.charCodeAt(0)) return false;
      }
    }
  }

  /** One character of a class: the literal it stands for, ESCAPE for `\d`-like ones, or undefined. */
  #classChar(): string | undefined {
    const ch = this.#p[this.#i];
    if (ch === undefined || ch === ']' || ch === '[') return undefined;
    this.#i++;
    if (ch !== '\\') return ch;
    const next = this.#p[this.#i];
    if (next === undefined) return undefined;
    this.#i++;
    if (CLASS_ESCAPES.has(next)) return ESCAPE;
    return isAlnum(next) ? undefined : next;
  }
}

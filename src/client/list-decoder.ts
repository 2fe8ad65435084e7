/**
 * Decodes a list answer (`{"kind":…,"metadata":{…},"items":[{…},{…},…]}`) as its bytes arrive:
 * the items are parsed in batches (about `batchBytes` of text each) while the rest of the answer is still on its
 * way, and handed on in order; what is left (the last items and every other field) is parsed at the
 * end. A resourceVersion-0 list of 100,000 objects is one answer of ~40 MB that the API server
 * takes ~0.5 s to send: decoded this way the client parses and stores it meanwhile, instead of
 * first holding the whole text and then parsing it in one go (docs/performance.md, "100,000
 * objects").
 *
 * How a batch is cut without tokenizing every byte in JavaScript: the text from the start of an
 * item up to a `},{` is tried as the elements of an array (`[` + text + `]`). It parses only if that
 * `}` closes an item of the list itself: a `}` that closes a nested object leaves that item's `{`
 * open, and a `}` inside a string leaves the string unterminated (an unescaped `"` cannot occur in a
 * JSON string), so either is a syntax error, never a wrong value. A failed try costs one parse; the
 * next try waits for twice as many bytes, so tries cost at most about one more parse of the answer.
 * Every cut is at an ASCII byte, so no UTF-8 character is split between batches.
 *
 * Objects with arrays of objects (a Pod's containers, env, ports, conditions) hold many `},{` of
 * their own, so the last `},{` of the bytes is seldom an item's end. The cut is therefore looked
 * for at `},` followed by the first item's own start up to its `"metadata":{` (`{"metadata":{` for
 * a built-in kind, `{"apiVersion":"…","kind":"…","metadata":{` for a custom resource), which
 * nested objects and strings (where every `"` is escaped) do not repeat; the parse still decides. A
 * failed try moves to the boundary before it (a few times) before waiting for more bytes.
 *
 * The `"items":[` is looked for at the top level of the answer's first bytes (a typed list puts
 * kind, apiVersion and metadata first; a custom resource's list, encoded from a map, puts `items`
 * after apiVersion and `kind` and `metadata` after it). An answer where it is not found there (not
 * a list, an error Status, whitespace in odd places) is parsed whole at the end, as before.
 */
export class ListDecoder {
  readonly #onItems: (items: unknown[]) => void;
  readonly #batchBytes: number;
  /** The answer up to and including `"items":[`, once found; undefined before (and when not found). */
  #head: string | undefined;
  /** Bytes not decoded yet: the first ones until the head is found, then from the next item on. */
  #pending: Buffer[] = [];
  #pendingSize = 0;
  /** No `"items":[` at the top level of the first bytes: the answer is parsed whole at the end. */
  #whole = false;
  /** Bytes to wait for before the next try to cut a batch (grows after a failed try). */
  #nextTry: number;
  /** Items handed on so far. */
  #count = 0;
  /** What a cut is looked for at (see the class comment); set from the first item's bytes. */
  #boundary: Buffer | undefined;

  /**
   * `onItems` is called with each batch of items, in the answer's order (a throw from it propagates
   * out of push/end). `batchBytes`: how much text a batch holds, about. The default, 64 KB, measured
   * best at 100,000 ConfigMaps with the scaffold's flags (a 1 MB young generation): 16-64 KB batches
   * took 0.87-1.00 s of CPU to synced and ~200 MB RSS, 256 KB 1.01-1.08 s and 235 MB, 1 MB
   * 1.02-1.10 s and 250 MB (docs/performance.md).
   */
  constructor(onItems: (items: unknown[]) => void, batchBytes = 64 * 1024) {
    this.#onItems = onItems;
    this.#batchBytes = batchBytes;
    this.#nextTry = batchBytes;
  }

  /** Items handed to onItems so far. */
  get count(): number {
    return this.#count;
  }

  /** The next bytes of the answer. */
  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.#pending.push(chunk);
    this.#pendingSize += chunk.length;
    if (this.#whole) return;
    if (this.#head === undefined) {
      this.#findHead();
      if (this.#head === undefined) return;
    }
    if (this.#pendingSize >= this.#nextTry) this.#cut();
  }

  /**
   * The answer is complete: the remaining items are handed on, and the answer is returned parsed,
   * with `items` emptied (every item went to onItems). An answer that is not JSON throws a
   * SyntaxError; one without an `items` array is returned as parsed; an empty one is undefined.
   */
  end(): unknown {
    const rest = this.#take();
    const text = this.#head === undefined ? rest.toString('utf8') : this.#head + rest.toString('utf8');
    this.#head = undefined;
    // An empty body is no answer (as the transport's request reads it), not a syntax error.
    if (text === '') return undefined;
    const answer: unknown = JSON.parse(text);
    const items = (answer as { items?: unknown } | null)?.items;
    if (Array.isArray(items)) {
      if (items.length > 0) {
        this.#count += items.length;
        this.#onItems(items);
      }
      (answer as { items: unknown[] }).items = [];
    }
    return answer;
  }

  /** Every pending byte as one Buffer (pending emptied). */
  #take(): Buffer {
    const all =
      this.#pending.length === 1 ? this.#pending[0]! : Buffer.concat(this.#pending, this.#pendingSize);
    this.#pending = [];
    this.#pendingSize = 0;
    return all;
  }

  /**
   * Looks for `"items":[` at the top level of the bytes so far (a string-aware scan of the first
   * bytes; they are a few hundred). Gives up after HEAD_LIMIT bytes or at anything but an object.
   */
  #findHead(): void {
    const bytes = this.#take();
    const at = itemsStart(bytes);
    if (at === NOT_YET && bytes.length <= HEAD_LIMIT) {
      this.#pending = [bytes];
      this.#pendingSize = bytes.length;
      return;
    }
    if (at < 0) {
      this.#whole = true;
      this.#pending = [bytes];
      this.#pendingSize = bytes.length;
      return;
    }
    this.#head = bytes.toString('utf8', 0, at);
    const rest = bytes.subarray(at);
    if (rest.length > 0) {
      this.#pending = [rest];
      this.#pendingSize = rest.length;
    }
  }

  /** Tries to decode the pending bytes up to their last item boundary as a batch of items. */
  #cut(): void {
    const bytes = this.#take();
    this.#boundary ??= itemBoundary(bytes);
    let items: unknown[] | undefined;
    let cut = bytes.lastIndexOf(this.#boundary);
    for (let tries = 0; cut > 0 && tries < CUT_TRIES; tries++) {
      try {
        items = JSON.parse(`[${bytes.toString('utf8', 0, cut + 1)}]`) as unknown[];
        break;
      } catch {
        cut = cut > 1 ? bytes.lastIndexOf(this.#boundary, cut - 1) : -1;
      }
    }
    if (items === undefined) {
      // No boundary yet, or only ones inside an item: wait for twice as many bytes.
      this.#pending = [bytes];
      this.#pendingSize = bytes.length;
      this.#nextTry = bytes.length * 2;
      return;
    }
    const rest = bytes.subarray(cut + 2);
    this.#pending = [rest];
    this.#pendingSize = rest.length;
    this.#nextTry = this.#batchBytes;
    this.#count += items.length;
    this.#onItems(items);
  }
}

/**
 * The boundary between two items, from the first item's bytes (`first` starts at its `{`): `},`
 * and that item's start up to its `"metadata":{` when it is found in the first SIGNATURE_LIMIT
 * bytes, else `},{`.
 */
function itemBoundary(first: Buffer): Buffer {
  const at = first.subarray(0, SIGNATURE_LIMIT).indexOf(METADATA_KEY);
  if (first[0] !== 0x7b /* { */ || at < 0) return ITEM_BOUNDARY;
  return Buffer.concat([ITEM_END, first.subarray(0, at + METADATA_KEY.length)]);
}

/** How many tries a cut gets (each at an earlier boundary) before waiting for more bytes. */
const CUT_TRIES = 3;
/** How far into the first item its `"metadata":{` is looked for. */
const SIGNATURE_LIMIT = 512;
const METADATA_KEY = Buffer.from('"metadata":{');
const ITEM_END = Buffer.from('},');
/** `},{`: the end of one item and the start of the next. */
const ITEM_BOUNDARY = Buffer.from('},{');
/** How many first bytes may hold the `"items":[` before the answer is parsed whole instead. */
const HEAD_LIMIT = 64 * 1024;
/** itemsStart: the bytes end before the answer's `"items":[` (or before it is clear there is none). */
const NOT_YET = -1;
/** itemsStart: the answer is not an object with an `items` array at its top level. */
const NONE = -2;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const ITEMS_KEY = Buffer.from('"items"');

/**
 * Where the elements of the top-level `"items":[` start (the byte after `[`), NOT_YET when `bytes`
 * end first, NONE when the answer is not an object or that key's value is not an array.
 */
function itemsStart(bytes: Buffer): number {
  let i = skipSpace(bytes, 0);
  if (i >= bytes.length) return NOT_YET;
  if (bytes[i] !== 0x7b /* { */) return NONE;
  let depth = 0;
  for (; i < bytes.length; i++) {
    const c = bytes[i]!;
    if (c === QUOTE) {
      if (depth === 1 && bytes.length - i >= ITEMS_KEY.length && isItemsKey(bytes, i)) {
        let j = skipSpace(bytes, i + ITEMS_KEY.length);
        if (j >= bytes.length) return NOT_YET;
        if (bytes[j] === 0x3a /* : */) {
          j = skipSpace(bytes, j + 1);
          if (j >= bytes.length) return NOT_YET;
          return bytes[j] === 0x5b /* [ */ ? j + 1 : NONE;
        }
      }
      const end = stringEnd(bytes, i);
      if (end < 0) return NOT_YET;
      i = end;
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) depth++;
    else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      depth--;
      if (depth === 0) return NONE;
    }
  }
  return NOT_YET;
}

function isItemsKey(bytes: Buffer, at: number): boolean {
  for (let k = 0; k < ITEMS_KEY.length; k++) if (bytes[at + k] !== ITEMS_KEY[k]) return false;
  return true;
}

/** The index of the `"` that ends the string opening at `open`, or -1 if the bytes end first. */
function stringEnd(bytes: Buffer, open: number): number {
  for (let i = open + 1; i < bytes.length; i++) {
    const c = bytes[i];
    if (c === BACKSLASH) i++;
    else if (c === QUOTE) return i;
  }
  return -1;
}

function skipSpace(bytes: Buffer, from: number): number {
  let i = from;
  while (i < bytes.length) {
    const c = bytes[i];
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
    i++;
  }
  return i;
}

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { ListDecoder } from '../../../src/client/list-decoder.ts';
import { assertFloor, assertProperty, fuzzRuns } from '../../helpers/fuzz-runs.ts';

interface Decoded {
  /** Every item, in the order onItems gave them. */
  readonly items: unknown[];
  /** How many onItems calls came before end() (batches cut while the answer was arriving). */
  readonly early: number;
  readonly answer: unknown;
}

/** Feeds `chunks` to a decoder; the items it hands on, and the answer end() returns. */
function decode(chunks: readonly Buffer[], batchBytes: number): Decoded {
  const items: unknown[] = [];
  let batches = 0;
  const decoder = new ListDecoder((batch) => {
    batches++;
    for (const item of batch) items.push(item);
  }, batchBytes);
  for (const c of chunks) decoder.push(c);
  const early = batches;
  const answer = decoder.end();
  assert.equal(decoder.count, items.length);
  return { items, early, answer };
}

/** What the decoder must give for `body`: its items, and the body with its items emptied. */
function expected(body: string): { items: unknown[]; answer: unknown } {
  const parsed = JSON.parse(body) as { items: unknown[] };
  return { items: parsed.items, answer: { ...parsed, items: [] } };
}

/** `bytes` in pieces of `size` (the last one shorter). */
function pieces(bytes: Buffer, size: number): Buffer[] {
  const out: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, i + size));
  return out;
}

// Items whose text holds what a cut could be fooled by: `},{` inside strings (escaped quotes,
// backslashes), nested arrays of objects that start like an item, a nested "items" key,
// non-ASCII text.
const tricky = [
  { metadata: { name: 'a', namespace: 'ns' }, data: { x: '},{"metadata":{' } },
  {
    metadata: { name: 'b', annotations: { j: '[{"a":1},{"b":"},{\\\\"}]', k: '\\' } },
    spec: { volumeClaimTemplates: [{ metadata: { name: 'v1' } }, { metadata: { name: 'v2' } }] },
  },
  { metadata: { name: 'c' }, spec: { items: [{ a: 1 }, { b: [{}, {}] }] }, data: { t: 'é 😀 ü' } },
  { metadata: { name: 'd' }, data: {} },
  { metadata: { name: 'e', labels: { '},{': '},{' } } },
];

describe('ListDecoder (a list answer decoded as it arrives)', () => {
  const typed = JSON.stringify({
    kind: 'ConfigMapList',
    apiVersion: 'v1',
    metadata: { resourceVersion: '42', continue: 'eyJ2Ijoi', remainingItemCount: 3 },
    items: tricky,
  });

  it('gives every item in order and the rest of the answer, however the bytes are cut', () => {
    const bytes = Buffer.from(typed, 'utf8');
    const want = expected(typed);
    let early = 0;
    let cuts = 0;
    for (const batchBytes of [1, 24, 200]) {
      for (let i = 0; i <= bytes.length; i++) {
        const got = decode([bytes.subarray(0, i), bytes.subarray(i)], batchBytes);
        assert.deepEqual(got.items, want.items, `cut at ${i}, batches of ${batchBytes}`);
        assert.deepEqual(got.answer, want.answer, `cut at ${i}, batches of ${batchBytes}`);
        if (got.early > 0) early++;
        cuts++;
      }
    }
    assert.equal(cuts, 3 * (bytes.length + 1));
    // A failed try (a `},{` inside an item) waits for twice the bytes, so some cuts decode it all at the end.
    assert.ok(early >= cuts / 5, `items were handed on before the end in ${early} of ${cuts} cuts`);
  });

  it('one byte at a time: each item handed on while the answer is still arriving', () => {
    const bytes = Buffer.from(typed, 'utf8');
    const seen: string[] = [];
    const decoder = new ListDecoder((batch) => {
      for (const item of batch) seen.push((item as { metadata: { name: string } }).metadata.name);
    }, 1);
    for (const b of bytes) decoder.push(Buffer.from([b]));
    assert.deepEqual(seen, ['a', 'b', 'c', 'd'], 'all but the last before the end');
    const answer = decoder.end() as { metadata: unknown; items: unknown[] };
    assert.deepEqual(seen, ['a', 'b', 'c', 'd', 'e']);
    assert.deepEqual(answer.items, []);
    assert.deepEqual(answer.metadata, { resourceVersion: '42', continue: 'eyJ2Ijoi', remainingItemCount: 3 });
  });

  it("a Pod list (every item holds `},{` of its own): cut at the items' starts, no failed parse", () => {
    // Arrays of objects in every item (containers, env, ports, conditions) and JSON in an annotation:
    // the last `},{` of any batch is almost never an item's end, so a cut looked for there fails.
    const pod = (i: number): unknown => ({
      metadata: {
        name: `p${i}`,
        namespace: 'ns',
        annotations: { applied: JSON.stringify({ containers: [{ name: 'a' }, { name: 'b' }] }) },
      },
      spec: {
        containers: [0, 1].map((c) => ({
          name: `c${c}`,
          env: [
            { name: 'A', value: '1' },
            { name: 'B', value: '2' },
          ],
          ports: [{ containerPort: 80 }, { containerPort: 81 }],
        })),
      },
      status: { conditions: [{ type: 'Ready' }, { type: 'Scheduled' }] },
    });
    const body = JSON.stringify({
      kind: 'PodList',
      apiVersion: 'v1',
      metadata: {},
      items: Array.from({ length: 400 }, (_, i) => pod(i)),
    });
    const parse = JSON.parse;
    let failed = 0;
    JSON.parse = ((text: string) => {
      try {
        return parse(text) as unknown;
      } catch (e) {
        failed++;
        throw e;
      }
    }) as typeof JSON.parse;
    try {
      const got = decode(pieces(Buffer.from(body), 1000), 4096);
      assert.deepEqual(got.items, expected(body).items);
      assert.equal(failed, 0, 'no try parsed a batch cut inside an item');
      assert.ok(got.early >= 30, `${got.early} batches before the end`);
    } finally {
      JSON.parse = parse;
    }
  });

  it("a custom resource's list (items before kind and metadata, keys sorted)", () => {
    const body = JSON.stringify({
      apiVersion: 'x.dev/v1',
      items: tricky,
      kind: 'ThingList',
      metadata: { continue: 'abc', resourceVersion: '9' },
    });
    const got = decode(pieces(Buffer.from(body), 7), 16);
    const want = expected(body);
    assert.deepEqual(got.items, want.items);
    assert.deepEqual(got.answer, want.answer);
    assert.ok(got.early > 0);
  });

  it('empty and null items, an error Status, a non-object: parsed whole, nothing handed on', () => {
    for (const body of [
      '{"kind":"ConfigMapList","metadata":{"resourceVersion":"1"},"items":[]}',
      '{"kind":"ConfigMapList","metadata":{"resourceVersion":"1"},"items":null}',
      '{"kind":"Status","status":"Failure","details":{"items":[{"a":1},{"b":2},{"c":3}]},"code":500}',
      '{"kind":"X","metadata":{"name":"\\"items\\":[{},{}]"},"spec":{"items":[{"a":1},{"b":2}]}}',
      '[{"a":1},{"b":2}]',
      '  {"metadata":{},"items" : [ {"a":1} , {"b":2} ] }  ',
    ]) {
      const got = decode(pieces(Buffer.from(body), 3), 1);
      const parsed = JSON.parse(body) as { items?: unknown };
      const items = Array.isArray(parsed.items) && !Array.isArray(parsed) ? parsed.items : [];
      assert.deepEqual(got.items, items, body);
      assert.deepEqual(got.answer, Array.isArray(parsed.items) ? { ...parsed, items: [] } : parsed, body);
    }
  });

  it('a body that is not JSON throws at the end; a throw from onItems propagates out of push', () => {
    assert.throws(() => decode([Buffer.from('{"items":[{"a":1},{"b":')], 1), SyntaxError);
    assert.equal(decode([], 1).answer, undefined, 'an empty body');
    const decoder = new ListDecoder(() => {
      throw new Error('stop');
    }, 1);
    assert.throws(() => decoder.push(Buffer.from('{"items":[{"a":1},{"b":2},{')), /stop/);
  });

  it('property: random JSON items, random chunks and batch sizes decode to JSON.parse of the whole', async (t) => {
    let early = 0;
    const runs = await assertProperty(
      t,
      fc.property(
        fc.array(fc.jsonValue({ maxDepth: 4 }), { maxLength: 12 }),
        fc.boolean(),
        fc.array(fc.integer({ min: 1, max: 64 }), { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 1, max: 256 }),
        (items, sortedKeys, sizes, batchBytes) => {
          const body = sortedKeys
            ? JSON.stringify({ apiVersion: 'v1', items, kind: 'L', metadata: { resourceVersion: '3' } })
            : JSON.stringify({ kind: 'L', metadata: { resourceVersion: '3' }, items });
          const bytes = Buffer.from(body, 'utf8');
          const chunks: Buffer[] = [];
          for (let at = 0, k = 0; at < bytes.length; k++) {
            const size = sizes[k % sizes.length]!;
            chunks.push(bytes.subarray(at, at + size));
            at += size;
          }
          const got = decode(chunks, batchBytes);
          const want = expected(body);
          assert.deepEqual(got.items, want.items);
          assert.deepEqual(got.answer, want.answer);
          if (got.early > 0) early++;
        },
      ),
      fuzzRuns(300, 3_000),
    );
    assertFloor(t, 'cases with items handed on before the end', early, Math.floor(runs / 10));
  });
});

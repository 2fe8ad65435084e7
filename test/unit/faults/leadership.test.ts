import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { metricIntervals, overlaps, type LeadershipRecord } from '../../faults/leadership.ts';

const record = (samples: Record<string, [sentAt: number, readAt: number, leader: boolean][]>) =>
  ({
    rounds: 0,
    roundsWithTwoLeaders: 0,
    holders: [],
    samples: new Map(
      Object.entries(samples).map(([k, v]) => [
        k,
        v.map(([sentAt, readAt, leader]) => ({ sentAt, readAt, leader })),
      ]),
    ),
  }) satisfies LeadershipRecord;

describe('fault suite: leadership checks', () => {
  it('a replica may have led from its first leading answer (sent) to its last (read)', () => {
    const r = record({
      a: [
        [0, 5, false],
        [100, 105, true],
        [200, 205, true],
        [300, 305, true],
        [400, 405, false],
      ],
      b: [[100, 101, true]], // one answer is an interval too
      c: [[100, 101, false]],
    });
    assert.deepEqual(metricIntervals(r), [
      { replica: 'a', from: 100, to: 305 },
      { replica: 'b', from: 100, to: 101 },
    ]);
  });

  it('finds two replicas leading at once, and only then', () => {
    const handoff = metricIntervals(
      record({
        a: [
          [0, 1, true],
          [100, 101, true],
          [200, 201, false],
        ],
        b: [
          [200, 202, true],
          [300, 301, true],
        ],
      }),
    );
    assert.deepEqual(overlaps(handoff), []);
    const overlap = metricIntervals(
      record({
        a: [
          [0, 1, true],
          [300, 301, true],
        ],
        b: [
          [200, 202, true],
          [400, 401, true],
        ],
      }),
    );
    assert.equal(overlaps(overlap).length, 1);
    assert.match(overlaps(overlap)[0]!, /^a \[0, 301\] and b \[200, 401\]$/);
    // Two leading answers whose requests were in flight at once: an overlap the narrow intervals hid.
    const brief = metricIntervals(
      record({
        a: [[300, 310, true]],
        b: [[305, 306, true]],
      }),
    );
    assert.equal(overlaps(brief).length, 1);
  });
});

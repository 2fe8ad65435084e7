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
  it('a replica led for sure from its first leading answer (read) to its last (sent)', () => {
    const r = record({
      a: [
        [0, 5, false],
        [100, 105, true],
        [200, 205, true],
        [300, 305, true],
        [400, 405, false],
      ],
      b: [[100, 101, true]], // one sample proves no interval
    });
    assert.deepEqual(metricIntervals(r), [{ replica: 'a', from: 105, to: 300 }]);
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
    assert.match(overlaps(overlap)[0]!, /^a \[1, 300\] and b \[202, 400\]$/);
  });
});

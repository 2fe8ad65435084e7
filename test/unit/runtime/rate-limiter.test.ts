import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FakeClock } from '../../../src/runtime/clock.ts';
import {
  BucketRateLimiter,
  defaultControllerRateLimiter,
  ItemExponentialFailureRateLimiter,
  MaxOfRateLimiter,
} from '../../../src/runtime/rate-limiter.ts';

describe('ItemExponentialFailureRateLimiter', () => {
  it('doubles from 5 ms per failure of the same item and caps at 1000 s', () => {
    const rl = new ItemExponentialFailureRateLimiter<string>();
    assert.deepEqual(
      [1, 2, 3, 4].map(() => rl.when('a')),
      [5, 10, 20, 40],
    );
    assert.equal(rl.numRequeues('a'), 4);
    assert.equal(rl.when('b'), 5, 'items back off independently');
    for (let i = 0; i < 30; i++) rl.when('a');
    assert.equal(rl.when('a'), 1_000_000);
    for (let i = 0; i < 2000; i++) rl.when('a');
    assert.equal(rl.when('a'), 1_000_000, 'no overflow after many failures');
  });

  it('starts over after forget', () => {
    const rl = new ItemExponentialFailureRateLimiter<string>();
    rl.when('a');
    rl.when('a');
    rl.forget('a');
    assert.equal(rl.numRequeues('a'), 0);
    assert.equal(rl.when('a'), 5);
  });
});

describe('BucketRateLimiter', () => {
  it('lets a burst through at once, then spaces items at 1/qps, refilling over time', () => {
    const clock = new FakeClock();
    const rl = new BucketRateLimiter<string>(10, 3, clock);
    assert.deepEqual([rl.when('a'), rl.when('b'), rl.when('c')], [0, 0, 0]);
    assert.equal(rl.when('d'), 100);
    assert.equal(rl.when('e'), 200);
    clock.step(1000);
    // 10 tokens arrived, capped at the burst of 3, minus the two borrowed.
    assert.equal(rl.when('f'), 0);
  });
});

describe('defaultControllerRateLimiter', () => {
  it('takes the larger of per-item backoff and the overall bucket', () => {
    const clock = new FakeClock();
    const rl = new MaxOfRateLimiter<string>(
      new ItemExponentialFailureRateLimiter(5, 1000),
      new BucketRateLimiter(1, 1, clock),
    );
    assert.equal(rl.when('a'), 5);
    assert.equal(rl.when('a'), 1000, 'bucket empty: wait for the next token');
    const d = defaultControllerRateLimiter<string>(clock);
    assert.equal(d.when('x'), 5);
    assert.equal(d.numRequeues('x'), 1);
    d.forget('x');
    assert.equal(d.numRequeues('x'), 0);
  });
});

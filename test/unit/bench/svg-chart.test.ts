import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { lineChart, niceTicks } from '../../../bench/compare/svg-chart.ts';

describe('bench svg-chart', () => {
  it('picks round ticks from 0 covering the maximum', () => {
    assert.deepEqual(niceTicks(10), [0, 2, 4, 6, 8, 10]);
    assert.deepEqual(niceTicks(0.97), [0, 0.2, 0.4, 0.6, 0.8, 1]);
    assert.deepEqual(niceTicks(2300), [0, 500, 1000, 1500, 2000, 2500]);
    assert.deepEqual(niceTicks(0), [0, 1]);
  });

  it('draws each series as a polyline over the plot, in order of x, with a legend and the reference', () => {
    const svg = lineChart({
      title: 'A & B <test>',
      xLabel: 'kinds',
      yLabel: 'ms',
      logX: true,
      width: 400,
      height: 300,
      reference: { y: 50, label: 'target' },
      series: [
        {
          name: 'op-gen',
          points: [
            [100, 100],
            [10, 20],
            [1000, 200],
          ],
        },
        {
          name: 'controller-gen',
          points: [
            [10, 40],
            [1000, 400],
          ],
        },
      ],
    });
    assert.match(svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" width="400" height="300"/);
    assert.ok(svg.endsWith('</svg>\n'));
    assert.match(svg, /A &amp; B &lt;test&gt;/);
    const polylines = [...svg.matchAll(/<polyline [^>]*points="([^"]+)"/g)].map((m) => m[1]!);
    assert.equal(polylines.length, 2);
    // Plot area: x from 64 to 384; log x puts 10, 100, 1000 at the left, middle and right.
    // y: plot height 192 from 36 down to 228; the top tick is 500 (400 × 1.05 rounded up to a step
    // of 100), so y = 228 - v / 500 × 192.
    assert.equal(polylines[0], '64,220.3 224,189.6 384,151.2');
    assert.equal(polylines[1], '64,212.6 384,74.4');
    assert.match(svg, /stroke-dasharray="6 4"/);
    assert.match(svg, />op-gen</);
    assert.match(svg, />controller-gen</);
    assert.equal(
      lineChart({ title: 't', xLabel: 'x', yLabel: 'y', series: [] }).includes('<polyline'),
      false,
    );
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SourceSnapshot } from '../../../src/dev-loop/source-snapshot.ts';

describe('SourceSnapshot', () => {
  it('counts an event only when the content changed, a new file, or a deleted one', () => {
    const files = new Map<string, string>([
      ['/s/a.ts', 'a'],
      ['/s/b.ts', 'b'],
    ]);
    const snap = new SourceSnapshot((p) => (files.has(p) ? Buffer.from(files.get(p)!) : undefined));
    snap.refresh(['/s/a.ts', '/s/b.ts']);
    assert.deepEqual(snap.changed(['/s/a.ts']), [], 'a save without edits');
    files.set('/s/a.ts', 'a2');
    assert.deepEqual(snap.changed(['/s/a.ts', '/s/b.ts']), ['/s/a.ts']);
    assert.deepEqual(snap.changed(['/s/a.ts']), [], 'recorded');
    files.set('/s/c.ts', 'c');
    assert.deepEqual(snap.changed(['/s/c.ts']), ['/s/c.ts'], 'a new file');
    files.delete('/s/b.ts');
    assert.deepEqual(snap.changed(['/s/b.ts']), ['/s/b.ts'], 'a deleted file');
    assert.deepEqual(snap.changed(['/s/b.ts']), [], 'counted once');
    assert.deepEqual(snap.changed(['/s/never.ts']), [], 'an unknown path that does not exist');
  });

  it('refresh takes in files the generators wrote', () => {
    const files = new Map<string, string>([['/s/clients/x.ts', 'v1']]);
    const snap = new SourceSnapshot((p) => (files.has(p) ? Buffer.from(files.get(p)!) : undefined));
    snap.refresh(['/s/clients/x.ts']);
    files.set('/s/clients/x.ts', 'v2');
    snap.refresh(['/s/clients/x.ts']);
    assert.deepEqual(snap.changed(['/s/clients/x.ts']), []);
  });

  it('a vanished folder stands for the recorded files under it that are gone', () => {
    const files = new Map<string, string>([
      ['/s/api/v1/a.ts', 'a'],
      ['/s/api/v1/b.ts', 'b'],
      ['/s/api-other.ts', 'o'],
      ['/s/main.ts', 'm'],
    ]);
    const snap = new SourceSnapshot((p) => (files.has(p) ? Buffer.from(files.get(p)!) : undefined));
    snap.refresh([...files.keys()]);
    files.delete('/s/api/v1/a.ts');
    files.delete('/s/api/v1/b.ts');
    files.delete('/s/api-other.ts');
    assert.deepEqual(snap.changed(['/s/api']), ['/s/api/v1/a.ts', '/s/api/v1/b.ts'], 'not api-other.ts');
    assert.deepEqual(snap.changed(['/s/api']), [], 'counted once');
    assert.deepEqual(snap.changed(['/s']), ['/s/api-other.ts'], 'the root itself');
  });
});

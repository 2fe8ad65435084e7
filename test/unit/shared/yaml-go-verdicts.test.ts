import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { readYamlFast } from '../../../src/generate/types/read-yaml-fast.ts';
import { readYamlDocuments } from '../../../src/shared/yaml-documents.ts';

/**
 * op-gen's YAML reading held to go-yaml's (sigs.k8s.io/yaml, as kubectl and the API server read
 * YAML) on the constructs where the npm readers and go-yaml differ. The expected values are
 * committed: tools/go-yaml-verdicts/ (a Go program over cases.json, output verdicts.json).
 * The reference is go-yaml's UnmarshalStrict (sigs.k8s.io/yaml v1.6.0 over go.yaml.in/yaml/v2 v2.4.4,
 * the versions Kubernetes 1.37 builds with): kubectl's default (strict) field validation refuses
 * duplicate keys too, and a key a `<<` merge also sets. Both of op-gen's readers are checked: the shared one (every command) and the
 * fast one `generate types` tries first (read-yaml-fast.ts, falling back to the shared one).
 */
interface Verdict {
  readonly ok: boolean;
  readonly value?: unknown;
  readonly error?: string;
}
const dir = new URL('../../../tools/go-yaml-verdicts/', import.meta.url);
const CASES = JSON.parse(readFileSync(new URL('cases.json', dir), 'utf8')) as {
  name: string;
  yaml: string;
}[];
const GO = JSON.parse(readFileSync(new URL('verdicts.json', dir), 'utf8')) as {
  name: string;
  unmarshalStrict: Verdict;
}[];

/**
 * Where op-gen reads a value go-yaml reads differently, on purpose or not yet: both accept the text.
 * The test fails when one of these stops differing (remove it) or another starts.
 */
const VALUE_DIFFERENCES: Readonly<Record<string, string>> = {};

/** Where op-gen accepts what go-yaml refuses. */
const ACCEPTED_BEYOND_GO: Readonly<Record<string, string>> = {};

/** Where op-gen still refuses what go-yaml accepts (not done yet; the test fails once it is). */
const REFUSED_WHERE_GO_ACCEPTS: Readonly<Record<string, string>> = {};

function normalize(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value) ?? 'null') as unknown;
}

function shared(text: string): Verdict {
  try {
    const docs = readYamlDocuments(text, (p) => new Error(`line ${p.line}: ${p.message}`));
    return { ok: true, value: normalize(docs[0]?.value ?? null) };
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
}

function typesReader(text: string): Verdict {
  const fast = readYamlFast(text);
  return fast ? { ok: true, value: normalize(fast[0]?.value ?? null) } : shared(text);
}

describe('YAML read as go-yaml reads it', () => {
  it('has a go-yaml verdict for every case', () => {
    assert.deepEqual(
      GO.map((g) => g.name),
      CASES.map((c) => c.name),
    );
    assert.ok(CASES.length >= 40, `${CASES.length} cases`);
  });

  for (const c of CASES) {
    const text = c.yaml.replaceAll('LONGKEY', 'k'.repeat(1100));
    const go = GO.find((g) => g.name === c.name)?.unmarshalStrict;
    for (const [reader, read] of [
      ['shared reader', shared],
      ['generate types reader', typesReader],
    ] as const) {
      it(`${c.name} (${reader})`, () => {
        assert.ok(go);
        const got = read(text);
        if (!go.ok) {
          if (ACCEPTED_BEYOND_GO[c.name]) {
            assert.equal(got.ok, true, `${c.name} is refused now: remove it from ACCEPTED_BEYOND_GO`);
            return;
          }
          assert.equal(
            got.ok,
            false,
            `go-yaml refuses (${go.error}); op-gen read ${JSON.stringify(got.value)}`,
          );
          assert.match(got.error ?? '', /^line \d+: \S/, 'the refusal names the line and why');
          // The same reason as go-yaml's: the key set twice, the value JSON cannot hold.
          const twice = /key "?([^"\s]+)"? already set in map/.exec(go.error ?? '')?.[1];
          if (twice) assert.match(got.error ?? '', new RegExp(`key "${twice}"`));
          if (/unsupported value: [+-]?Inf/.test(go.error ?? ''))
            assert.match(got.error ?? '', /is infinity/);
          return;
        }
        if (REFUSED_WHERE_GO_ACCEPTS[c.name]) {
          assert.equal(got.ok, false, `${c.name} is read now: remove it from REFUSED_WHERE_GO_ACCEPTS`);
          assert.match(got.error ?? '', /^line \d+: \S/, 'the refusal names the line and why');
          return;
        }
        assert.equal(got.ok, true, `go-yaml accepts; op-gen refuses: ${got.error}`);
        const same = JSON.stringify(got.value) === JSON.stringify(normalize(go.value));
        if (VALUE_DIFFERENCES[c.name]) {
          assert.ok(!same, `${c.name} now reads as go-yaml does: remove it from VALUE_DIFFERENCES`);
          return;
        }
        assert.deepEqual(got.value, go.value);
      });
    }
  }
});

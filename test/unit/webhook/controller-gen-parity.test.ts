import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { generateWebhooks } from '../../../src/generate/webhook/index.ts';

const markersGo = new URL('../../fixtures/webhook/controller-gen-parity/markers.go', import.meta.url);
const controllerGen = new URL('../../golden/webhook/controller-gen/manifests.yaml', import.meta.url);

/** Splits controller-gen's `a=1,b="x,y",c=`{...}`` on the commas between arguments. */
function splitGoArgs(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let quote: string | undefined;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === '\\' && quote === '"') i++;
      else if (c === quote) quote = undefined;
    } else if (c === '"' || c === '`') quote = c;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') depth--;
    else if (c === ',' && depth === 0) {
      out.push(text.slice(start, i));
      start = i + 1;
    }
  }
  out.push(text.slice(start));
  return out;
}

/** `+kubebuilder:webhook:<args>` as the `@webhook <args>` op-gen reads (backtick-quoted JSON unwrapped). */
function toTag(line: string): string | undefined {
  const m = /^\/\/ \+kubebuilder:(webhook|webhookconfiguration):(.*)$/.exec(line);
  if (!m) return undefined;
  const args = splitGoArgs(m[2] ?? '').map((arg) => arg.replace(/=`([\s\S]*)`$/, '=$1'));
  return `@${m[1]} ${args.join(' ')}`;
}

describe('generate webhook matches controller-gen v0.23.0', () => {
  const dir = mkdtempSync(join(tmpdir(), 'op-gen-webhook-parity-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('writes the configurations controller-gen wrote from the same markers', async () => {
    const tags = readFileSync(markersGo, 'utf8')
      .split('\n')
      .flatMap((line) => toTag(line) ?? []);
    assert.equal(tags.length, 10);
    mkdirSync(join(dir, 'src'), { recursive: true });
    // One handler class per marker, as the scaffold places them.
    const source = tags
      .map((tag, i) => `/**\n * Handler ${i}.\n * ${tag}\n */\nexport class Handler${i} {}\n`)
      .join('\n');
    writeFileSync(join(dir, 'src', 'handlers.ts'), source);
    await generateWebhooks({ cwd: dir });
    const ours = parseAllDocuments(
      readFileSync(join(dir, 'config', 'webhook', 'manifests.yaml'), 'utf8'),
    ).map((d) => d.toJS() as unknown);
    const theirs = parseAllDocuments(readFileSync(controllerGen, 'utf8')).map((d) => d.toJS() as unknown);
    assert.deepEqual(ours, theirs);
  });
});

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import { goFormLines, goFormProblems } from '../../../src/generate/go-forms.ts';
import { webhookMarkers } from '../../../src/generate/webhook/markers.ts';
import { mayHoldWebhookMarkers } from '../../../src/generate/webhook/source-markers.ts';
import { parseDocComment } from '../../../src/markers/jsdoc.ts';
import { jsDocComments } from '../../../src/source/jsdoc-comments.ts';
import { loadTypeScript } from '../../../src/source/typescript.ts';
import { assertFloor, assertProperty, fuzzRuns } from '../../helpers/fuzz-runs.ts';

/**
 * What reading a file's comments finds that concerns webhooks, computed the long way (parse, every
 * JSDoc comment, every tag and Go-form line): the oracle the text prefilter must never miss.
 */
function webhookFindings(text: string): string[] {
  const ts = loadTypeScript();
  // JSDoc unparsed, as readWebhookMarkers parses (TypeScript's JSDoc parser never returns on some
  // files that end inside a JSDoc comment, `/** @a--:`, found by this property).
  const sourceFile = ts.createSourceFile(
    'a.ts',
    text,
    { languageVersion: ts.ScriptTarget.ES2023, jsDocParsingMode: ts.JSDocParsingMode.ParseNone },
    false,
    ts.ScriptKind.TS,
  );
  const out: string[] = [];
  for (const range of jsDocComments(sourceFile)) {
    const comment = parseDocComment(text.slice(range.pos, range.end), 1, goFormLines);
    const accept = (spec: { readonly name: string } | undefined): boolean =>
      spec !== undefined && webhookMarkers.knows(spec.name);
    out.push(...goFormProblems(comment, 'a.ts', { accept }));
    for (const tag of comment.tags)
      if (webhookMarkers.knows(tag.name) || webhookMarkers.suggest(tag.name)) out.push(`@${tag.name}`);
  }
  return out;
}

const TAG_NAMES = [
  'webhook',
  'webhookconfiguration',
  'webhok',
  'Webhook',
  'webhooks',
  'webhookconfig',
  'param',
  'rbac',
  'see',
  'kubebuilder',
  'default',
];

/** A tag name: a known one, a near miss, another tool's, or random. */
const tagName = fc.oneof(
  fc.constantFrom(...TAG_NAMES),
  fc.stringMatching(/^[A-Za-z][\w:.-]{0,14}$/),
  fc
    .tuple(fc.constantFrom('webhook', 'webhookconfiguration'), fc.nat(20), fc.constantFrom('', 'x', '-', 'o'))
    .map(([n, at, ins]) => n.slice(0, at % (n.length + 1)) + ins + n.slice((at % (n.length + 1)) + 1)),
);

/** A line of a source file: comment openers and closers, tags, Go forms, code, strings. */
const line = fc.oneof(
  fc.constantFrom('/**', ' */', '/** one line */', 'export class A {}', '', ' *', '```', ' * ```'),
  tagName.map((n) => ` * @${n} path=/validate-x mutating=false`),
  tagName.map((n) => ` * text @${n} inline`),
  tagName.map((n) => `/** @${n} */`),
  tagName.map((n) => `const s = "@${n}";`),
  tagName.map((n) => `// @${n}`),
  tagName.map((n) => ` * mail@${n}.io`),
  fc.constantFrom(
    ' * +kubebuilder:webhook:path=/x,mutating=true',
    ' * +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get',
    ' * +kubebuilder:validation:Minimum=0',
  ),
);

describe('mayHoldWebhookMarkers (the prefilter that spares a project without webhooks the compiler)', () => {
  it('never passes over a file whose comments hold a webhook marker, a misspelling of one, or its Go form', async (t) => {
    const runs = fuzzRuns(600, 20_000);
    let passedOver = 0;
    let held = 0;
    await assertProperty(
      t,
      fc.property(fc.array(line, { maxLength: 14 }), (lines) => {
        const text = lines.join('\n');
        if (mayHoldWebhookMarkers(text)) {
          // Files with findings are drawn, or a prefilter passing over everything would pass (the
          // oracle is slow: the first few dozen held files are enough to show it).
          if (held < 30 && webhookFindings(text).length > 0) held++;
          return;
        }
        passedOver++;
        assert.deepEqual(webhookFindings(text), [], text);
      }),
      runs,
    );
    assertFloor(t, 'files passed over, each without findings', passedOver, runs * 0.1);
    assertFloor(t, 'files with findings, each held (counted up to 30)', held, Math.min(30, runs * 0.05));
  });

  it('passes a file with a webhook tag, and skips one with only other tools’ tags', () => {
    assert.equal(mayHoldWebhookMarkers('/**\n * @webhook path=/x\n */'), true);
    assert.equal(mayHoldWebhookMarkers('/**\n * @webhok path=/x\n */'), true, 'a misspelling is reported');
    assert.equal(mayHoldWebhookMarkers('/** +kubebuilder:webhook:path=/x */'), true);
    assert.equal(mayHoldWebhookMarkers('/**\n * @param x the thing\n * @rbac groups=apps\n */'), false);
    assert.equal(mayHoldWebhookMarkers('export const x = 1;\n'), false);
  });
});

describe('generate webhook on a project without webhooks', () => {
  const root = mkdtempSync(join(tmpdir(), 'op-gen-webhook-prefilter-'));
  after(() => rmSync(root, { recursive: true, force: true }));

  it('does not load the TypeScript compiler', () => {
    mkdirSync(join(root, 'src'), { recursive: true });
    writeFileSync(
      join(root, 'src', 'main.ts'),
      '/**\n * Starts the manager.\n * @param argv the arguments\n */\nexport {};\n',
    );
    const probe = [
      `import { readWebhookMarkers } from ${JSON.stringify(new URL('../../../src/generate/webhook/source-markers.ts', import.meta.url).href)};`,
      `import { createRequire } from 'node:module';`,
      `const found = readWebhookMarkers(${JSON.stringify(root)}, ['src']);`,
      `const loaded = Object.keys(createRequire(import.meta.url).cache).filter((k) => /typescript(\\.cjs|\\.js)$/.test(k));`,
      `console.log(JSON.stringify({ webhooks: found.webhooks.length, loaded }));`,
    ].join('\n');
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', probe], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), { webhooks: 0, loaded: [] });

    // The probe can tell: with a webhook marker the compiler is loaded.
    writeFileSync(
      join(root, 'src', 'hook.ts'),
      '/**\n * @webhook path=/validate-x mutating=false failurePolicy=fail sideEffects=None groups=x.io resources=xs verbs=create versions=v1 name=vx.kb.io admissionReviewVersions=v1\n */\nexport class Hook {}\n',
    );
    const again = spawnSync(process.execPath, ['--input-type=module', '-e', probe], { encoding: 'utf8' });
    assert.equal(again.status, 0, again.stderr);
    const seen = JSON.parse(again.stdout) as { webhooks: number; loaded: string[] };
    assert.equal(seen.webhooks, 1);
    assert.equal(seen.loaded.length, 1);
  });
});

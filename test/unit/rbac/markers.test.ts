import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ts } from 'ts-morph';
import { OpGenError } from '../../../src/errors.ts';
import { findRbacMarkerTexts, parseRbacMarker, rbacMarkerRules } from '../../../src/generate/rbac/rbac-markers.ts';

const parse = (code: string) => ts.createSourceFile('x.ts', code, ts.ScriptTarget.ES2023, true);

describe('@rbac markers', () => {
  it('reads tags from class and module JSDoc with their lines, not from strings or line comments', () => {
    const file = parse(
      [
        '/**', // 1
        ' * The controller module.', // 2
        ' * @rbac groups=apps resources=deployments verbs=get;list', // 3
        ' */', // 4
        "import x from 'y';", // 5
        '// @rbac groups=no resources=no verbs=get', // 6
        "const s = '/** @rbac groups=no resources=no verbs=get */';", // 7
        '/**', // 8
        ' * Reconciles things.', // 9
        ' * @rbac groups=""', // 10
        ' *   resources=pods;pods/log', // 11
        ' *   verbs=get', // 12
        ' * @see elsewhere', // 13
        ' */', // 14
        'export class R { /** @rbac urls=/metrics verbs=get */ m() {} }', // 15
      ].join('\n'),
    );
    assert.deepEqual(findRbacMarkerTexts(file), [
      { line: 3, text: 'groups=apps resources=deployments verbs=get;list' },
      { line: 10, text: 'groups="" resources=pods;pods/log verbs=get' },
      { line: 15, text: 'urls=/metrics verbs=get' },
    ]);
    const rules = rbacMarkerRules(file, 'src/c.ts');
    assert.deepEqual(rules[1]?.groups, ['']);
    assert.deepEqual(rules[1]?.resources, ['pods', 'pods/log']);
    assert.deepEqual(rules[1]?.origin, { file: 'src/c.ts', line: 10, source: '@rbac' });
  });

  it('parses every argument, quoted items and controller-gen comma syntax', () => {
    const r = parseRbacMarker(
      {
        line: 7,
        text: 'groups=core;"";apps,resources=configmaps resourceNames=a;b verbs=get namespace=ns roleName=r',
      },
      'f.ts',
    );
    assert.deepEqual(
      { ...r, origin: undefined },
      {
        groups: ['core', '', 'apps'],
        resources: ['configmaps'],
        resourceNames: ['a', 'b'],
        urls: [],
        verbs: ['get'],
        namespace: 'ns',
        roleName: 'r',
        origin: undefined,
      },
    );
  });

  const bad: [string, RegExp][] = [
    ['groups=apps resources=deployments verb=get', /f\.ts:4: @rbac: unknown argument `verb` \(did you mean `verbs`\?\)/],
    ['groups=apps groups=batch verbs=get', /f\.ts:4: @rbac: `groups` given twice/],
    ['groups="apps resources=x verbs=get', /f\.ts:4: @rbac: unterminated quote/],
    ['deployments', /f\.ts:4: @rbac: expected `key=value`, got `deployments`/],
    ['', /f\.ts:4: @rbac: no arguments/],
    ['namespace=a;b verbs=get', /f\.ts:4: @rbac: `namespace` takes one value/],
  ];
  for (const [text, message] of bad) {
    it(`rejects \`${text}\` naming file:line`, () => {
      assert.throws(
        () => parseRbacMarker({ line: 4, text }, 'f.ts'),
        (err: unknown) => err instanceof OpGenError && message.test(err.message),
      );
    });
  }
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ts } from 'ts-morph';
import { OpGenError } from '../../../src/errors.ts';
import { findRbacTags, parseRbacTag, rbacMarkerRules } from '../../../src/generate/rbac/rbac-markers.ts';

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
        'class S {', // 16
        '  m() {}', // 17
        '  /** @rbac groups=batch resources=jobs verbs=create */', // 18
        '}', // 19
      ].join('\n'),
    );
    assert.deepEqual(
      findRbacTags(file).map((t) => [t.line, t.text.replace(/\s+/g, ' ')]),
      [
        [3, 'groups=apps resources=deployments verbs=get;list'],
        [10, 'groups="" resources=pods;pods/log verbs=get'],
        [15, 'urls=/metrics verbs=get'],
        [18, 'groups=batch resources=jobs verbs=create'],
      ],
    );
    const rules = rbacMarkerRules(file, 'src/c.ts');
    assert.deepEqual(rules[1]?.groups, ['core']);
    assert.deepEqual(rules[1]?.resources, ['pods', 'pods/log']);
    assert.deepEqual(rules[1]?.origin, { file: 'src/c.ts', line: 10, source: '@rbac' });
  });

  it('parses every argument and quoted items', () => {
    const r = parseRbacTag(
      {
        name: 'rbac',
        line: 7,
        text: 'groups=core;"";apps resources=configmaps resourceNames=a;b verbs=get namespace=ns roleName=r',
      },
      'f.ts',
    );
    assert.deepEqual(
      { ...r, origin: undefined },
      {
        groups: ['core', 'core', 'apps'],
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

  it('reports a tag one letter away from @rbac as a typo', () => {
    const file = parse('/**\n * @rback groups=apps resources=x verbs=get\n */\nexport class R {}');
    assert.throws(
      () => rbacMarkerRules(file, 'src/r.ts'),
      /^OpGenError: src\/r\.ts:2: @rback: unknown tag\. Did you mean @rbac\?/,
    );
    // other tools' tags pass through
    assert.deepEqual(
      rbacMarkerRules(parse('/** @param x the x\n * @returns y */\nfunction f(x) {}'), 'f.ts'),
      [],
    );
  });

  const bad: [string, RegExp][] = [
    ['groups=apps resources=deployments verb=get', /^f\.ts:4: @rbac: unknown argument "verb"/],
    ['groups=apps groups=batch verbs=get', /^f\.ts:4: @rbac: argument "groups" is given twice/],
    ['groups="apps resources=x verbs=get', /^f\.ts:4: @rbac: argument "groups": the " quote is not closed/],
    ['deployments', /^f\.ts:4: @rbac: argument "deployments" has no value/],
    ['', /^f\.ts:4: @rbac: missing required argument "verbs".*docs\/generate-rbac\.md/],
    ['groups=apps resources=deployments', /^f\.ts:4: @rbac: missing required argument "verbs"/],
  ];
  for (const [text, message] of bad) {
    it(`rejects \`${text}\` naming file:line`, () => {
      assert.throws(
        () => parseRbacTag({ name: 'rbac', line: 4, text }, 'f.ts'),
        (err: unknown) => err instanceof OpGenError && message.test(err.message),
      );
    });
  }
});

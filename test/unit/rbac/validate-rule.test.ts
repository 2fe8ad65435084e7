import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OpGenError } from '../../../src/errors.ts';
import { parseRbacTag } from '../../../src/generate/rbac/rbac-markers.ts';
import { validateRule } from '../../../src/generate/rbac/validate-rule.ts';

const check = (text: string, allowWildcards = false): void =>
  validateRule(parseRbacTag({ name: 'rbac', line: 12, text }, 'src/controllers/app.ts'), { allowWildcards });

function rejects(text: string, message: RegExp, allowWildcards = false): void {
  assert.throws(
    () => check(text, allowWildcards),
    (err: unknown) => {
      assert.ok(err instanceof OpGenError, String(err));
      assert.match(err.message, /^src\/controllers\/app\.ts:12: @rbac: /);
      assert.match(err.message, message);
      return true;
    },
  );
}

describe('rule validation', () => {
  it('accepts well-formed rules', () => {
    check('groups=apps resources=deployments;deployments/status verbs=get;list;watch');
    check('groups="" resources=pods/log verbs=get namespace=team-a');
    check('groups=core resources=configmaps resourceNames=cfg verbs=get;update');
    check('groups=cache.example.com resources=memcacheds/finalizers verbs=update');
    check('urls=/metrics;/healthz verbs=get');
    check('groups=policy resources=podsecuritypolicies verbs=use');
  });

  it('rejects an unknown verb and suggests the closest', () => {
    rejects(
      'groups=apps resources=deployments verbs=get;lsit',
      /unknown verb `lsit` \(did you mean `list`\?\)/,
    );
    rejects(
      'groups=apps resources=deployments verbs=frobnicate',
      /unknown verb `frobnicate`\. Known verbs: get, list/,
    );
    rejects('groups=apps resources=deployments verbs=Get', /unknown verb `Get` \(did you mean `get`\?\)/);
  });

  it('rejects a malformed group', () => {
    rejects('groups=Apps resources=deployments verbs=get', /malformed API group `Apps`/);
    rejects('groups=cache_example.com resources=x verbs=get', /malformed API group `cache_example.com`/);
    rejects('groups=-apps resources=x verbs=get', /malformed API group/);
  });

  it('rejects a resource with uppercase letters, naming the plural to use', () => {
    rejects(
      'groups=apps resources=Deployments verbs=get',
      /resource `Deployments` has uppercase letters.*`deployments`/,
    );
    rejects(
      'groups=apps resources=deployments/Status verbs=get',
      /resource `deployments\/Status` has uppercase/,
    );
    rejects('groups=apps resources=a/b/c verbs=get', /malformed resource `a\/b\/c`/);
  });

  it('rejects wildcards unless allowed', () => {
    rejects('groups=apps resources=deployments verbs=*', /wildcard `\*` in verbs.*--allow-wildcards/);
    rejects('groups=* resources=deployments verbs=get', /wildcard `\*` in groups/);
    rejects('groups=apps resources=*/scale verbs=get', /wildcard `\*\/scale` in resources/);
    rejects('urls=/debug/* verbs=get', /wildcard `\/debug\/\*` in urls/);
    check('groups=* resources=*;*/scale verbs=*', true);
    check('urls=/debug/* verbs=get', true);
  });

  it('rejects rules the API server would refuse', () => {
    rejects('groups=apps verbs=get', /no resources and no urls/);
    rejects('resources=pods verbs=get', /resources need `groups=`/);
    rejects('groups=apps resources=deployments', /missing required argument "verbs"/);
    rejects(
      'urls=/metrics groups=apps resources=x verbs=get',
      /either to resources .* or to non-resource URLs/,
    );
    rejects('urls=/metrics verbs=get namespace=ns', /non-resource URLs are cluster-wide/);
    rejects('urls=metrics verbs=get', /must start with `\/`/);
    rejects('groups=apps resources=deployments verbs=get namespace=Team_A', /malformed namespace/);
  });
});

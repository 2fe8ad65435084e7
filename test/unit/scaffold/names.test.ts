import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OpGenError } from '../../../src/errors.ts';
import {
  kebabCase,
  pluralize,
  validateDomain,
  validateGroup,
  validateKind,
  validateProjectName,
  validateVersion,
} from '../../../src/scaffold/names.ts';

describe('scaffold name rules', () => {
  it('accepts DNS-1123 label project names and rejects the rest', () => {
    for (const ok of ['memcached-operator', 'a', 'op2', 'x'.repeat(63)]) validateProjectName(ok);
    for (const bad of ['Memcached', 'memcached_operator', '-op', 'op-', 'a.b', '', 'x'.repeat(64)]) {
      assert.throws(
        () => validateProjectName(bad),
        (err: unknown) => {
          assert.ok(err instanceof OpGenError);
          assert.match(err.message, /invalid project name \(--name\).*DNS-1123 label.*memcached-operator/);
          return true;
        },
      );
    }
  });

  it('accepts DNS-1123 subdomain groups and domains', () => {
    validateGroup('cache', 'example.com');
    validateDomain('example.com');
    for (const bad of ['Cache', 'cache_x', 'cache.', '.cache', '']) {
      assert.throws(() => validateGroup(bad, 'example.com'), /invalid group \(--group\).*DNS-1123 subdomain/);
    }
    assert.throws(() => validateDomain('Example.com'), /invalid domain \(--domain\)/);
    // The domain comes from op-gen.yaml: a group with dots would be appended to it again.
    assert.throws(
      () => validateGroup('cache.example.com', 'example.com'),
      /invalid group \(--group\) "cache.example.com": the group is the short name: the domain \(example.com\) comes from op-gen.yaml.*cache.example.com.example.com \(for example cache\)/,
    );
    assert.throws(() => validateGroup('batch.jobs', 'example.com'), /the group is the short name/);
    assert.throws(
      () => validateGroup('a'.repeat(63), `${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}`),
      /longer than 253/,
    );
  });

  it('accepts Kubernetes API versions only', () => {
    for (const ok of ['v1', 'v1alpha1', 'v2beta3', 'v10', 'v1beta12']) validateVersion(ok);
    for (const bad of ['1', 'v0', 'V1', 'v1alpha', 'v1gamma1', 'v1alpha0', 'v01', 'v1-alpha1', '']) {
      assert.throws(() => validateVersion(bad), /invalid version \(--version\).*v1, v1alpha1, v2beta3/, bad);
    }
  });

  it('accepts PascalCase kinds only', () => {
    for (const ok of ['Memcached', 'MemcachedBackup', 'A', 'Redis2']) validateKind(ok);
    for (const bad of [
      'memcached',
      'Memcached-Backup',
      'Memcached_Backup',
      '2Redis',
      '',
      `M${'x'.repeat(63)}`,
    ]) {
      assert.throws(() => validateKind(bad), /invalid kind \(--kind\).*PascalCase/, bad);
    }
  });

  it('pluralizes and kebab-cases like kubebuilder for regular nouns', () => {
    assert.equal(pluralize('Memcached'), 'memcacheds');
    assert.equal(pluralize('Policy'), 'policies');
    assert.equal(pluralize('Gateway'), 'gateways');
    assert.equal(pluralize('Ingress'), 'ingresses');
    assert.equal(pluralize('Box'), 'boxes');
    assert.equal(pluralize('Patch'), 'patches');
    assert.equal(kebabCase('MemcachedBackup'), 'memcached-backup');
    assert.equal(kebabCase('HTTPRoute'), 'http-route');
    assert.equal(kebabCase('Memcached'), 'memcached');
  });
});

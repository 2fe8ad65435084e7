import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  dns1035LabelErrors,
  dns1123LabelErrors,
  dns1123SubdomainErrors,
  labelKeyErrors,
  labelValueErrors,
} from '../../../src/k8s-names/dns.ts';

/** Values and messages from k8s.io/apimachinery/pkg/util/validation (validation.go, validation_test.go). */
describe('DNS name checks with apimachinery messages', () => {
  it('DNS-1123 label', () => {
    for (const ok of ['a', 'ab', 'abc', 'a1', 'a-1', 'a--1--2--b', '0', '01', '1-0', 'x'.repeat(63)]) {
      assert.deepEqual(dns1123LabelErrors(ok), [], ok);
    }
    assert.deepEqual(dns1123LabelErrors('a.b'), ['must not contain dots']);
    assert.deepEqual(dns1123LabelErrors('Bad_NS'), [
      "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end " +
        "with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is " +
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    ]);
    assert.deepEqual(dns1123LabelErrors('x'.repeat(64)), ['must be no more than 63 characters']);
    for (const bad of ['', 'A', 'ABC', 'aBc', 'A1', 'a_1', 'a..1', '-', 'a-', '-a', '1-', '-1', '_', 'a b']) {
      assert.notDeepEqual(dns1123LabelErrors(bad), [], bad);
    }
  });

  it('DNS-1123 subdomain', () => {
    for (const ok of ['a', 'a.b', 'cache.example.com', '1.2.3.4', 'a-1.b-2', 'x'.repeat(253)]) {
      assert.deepEqual(dns1123SubdomainErrors(ok), [], ok);
    }
    assert.match(
      dns1123SubdomainErrors('Example.com')[0]!,
      /^a lowercase RFC 1123 subdomain must consist of/,
    );
    assert.deepEqual(dns1123SubdomainErrors('x'.repeat(254)), ['must be no more than 253 characters']);
    for (const bad of ['', 'a.', '.a', 'a..b', 'a_b', 'A.b', 'a-.b']) {
      assert.notDeepEqual(dns1123SubdomainErrors(bad), [], bad);
    }
  });

  it('DNS-1035 label (resource names)', () => {
    for (const ok of ['a', 'ab', 'a1', 'a-1', 'memcacheds']) assert.deepEqual(dns1035LabelErrors(ok), [], ok);
    assert.match(
      dns1035LabelErrors('1a')[0]!,
      /^a DNS-1035 label must consist of .* start with an alphabetic/,
    );
    for (const bad of ['', '0', '1-a', 'a-', 'A', 'dnsDNSes'])
      assert.notDeepEqual(dns1035LabelErrors(bad), [], bad);
  });

  it('label keys and values', () => {
    for (const ok of ['app', 'app.kubernetes.io/name', 'A_b.c-d', 'k8s.io/x'])
      assert.deepEqual(labelKeyErrors(ok), [], ok);
    assert.deepEqual(labelKeyErrors('/x'), ['prefix part must be non-empty']);
    assert.match(labelKeyErrors('a/b/c')[0]!, /^a valid label key must consist of/);
    assert.match(labelKeyErrors('Bad.Prefix/x')[0]!, /^prefix part a lowercase RFC 1123 subdomain/);
    assert.deepEqual(labelValueErrors(''), []);
    assert.match(labelValueErrors('-x')[0]!, /^a valid label must be an empty string/);
  });
});

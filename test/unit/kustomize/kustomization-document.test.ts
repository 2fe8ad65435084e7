import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OpGenError } from '../../../src/errors.ts';
import { parseKustomizationDocument } from '../../../src/kustomize/kustomization-document.ts';

/** The message of the error `parseKustomizationDocument` throws for `text`. */
function errorOf(text: string): string {
  try {
    parseKustomizationDocument(text, 'config/crd/kustomization.yaml');
  } catch (err) {
    assert.ok(err instanceof OpGenError, String(err));
    return err.message;
  }
  return assert.fail('no error');
}

describe('parseKustomizationDocument', () => {
  it('a syntax error is one line with its place (the parser adds a code frame; found by the project-files fuzz)', () => {
    assert.equal(
      errorOf('resources:\n  - bases/a.yaml\n"patches:\n'),
      'config/crd/kustomization.yaml:3:1: not valid YAML (Implicit keys need to be on a single line). Fix it, then run the command again.',
    );
  });

  it('an alias without its anchor is an error at its line', () => {
    assert.equal(
      errorOf('resources:\n  - *a\n'),
      'config/crd/kustomization.yaml:2: not valid YAML (an alias without its anchor). Fix it, then run the command again.',
    );
  });

  it('a kustomization that is not a mapping', () => {
    assert.match(
      errorOf('- a\n'),
      /^config\/crd\/kustomization\.yaml: expected a kustomization \(a YAML mapping\)/,
    );
  });

  it('keeps comments for editing', () => {
    assert.equal(parseKustomizationDocument('# c\nresources: []\n', 'k').toString(), '# c\nresources: []\n');
  });
});

// The docs point only at what exists: every relative link and #anchor in README.md,
// CONTRIBUTING.md, docs/*.md and examples/**/README.md resolves, and every backticked repo path
// (`generator/...`, `runtime/...`, `test/...`, `scripts/...`) names a file or folder that is there,
// so a renamed file cannot leave a doc describing the old layout.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { checkDoc, headingSlugs } from '../helpers/doc-links.js';
import { root } from '../helpers/paths.js';

function docs(): string[] {
  const inDocs = readdirSync(path.join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => path.join(root, 'docs', f));
  const examples = readdirSync(path.join(root, 'examples'), { recursive: true, encoding: 'utf8' })
    .filter((f) => path.basename(f) === 'README.md' && !f.split(path.sep).includes('node_modules'))
    .map((f) => path.join(root, 'examples', f));
  return [path.join(root, 'README.md'), path.join(root, 'CONTRIBUTING.md'), ...inDocs, ...examples].sort();
}

test('the set of docs checked includes the ones a newcomer reads first', () => {
  const names = docs().map((f) => path.relative(root, f));
  for (const want of ['README.md', 'CONTRIBUTING.md', 'docs/architecture.md', 'examples/downstream-app/README.md']) {
    assert.ok(names.includes(want), `${want} is not checked`);
  }
});

test('every relative link, anchor and backticked repo path in the docs resolves', () => {
  const problems = docs().flatMap((f) => checkDoc(f, readFileSync(f, 'utf8'), root));
  assert.equal(
    problems.map((p) => `${p.file}:${p.line}: ${p.message}`),
    [],
  );
});

test('anchors are GitHub heading slugs (code spans kept, punctuation dropped, duplicates numbered) and HTML ids', () => {
  const slugs = headingSlugs(
    '# `opforge test`: every backend\n\n## Set up\n\n## Set up\n\n## Gradients (torch >= 2.4)\n\n- <a id="kept"></a>**Kept**\n',
  );
  assert.equal([...slugs], ['opforge-test-every-backend', 'set-up', 'set-up-1', 'gradients-torch--24', 'kept']);
});

test('the checker reports a missing file, a missing anchor and a stale backticked path', () => {
  const file = path.join(root, 'docs', 'example.md');
  const text = [
    '# Example',
    '',
    'See [the tests](testing.md), [a gone file](gone.md), [here](#example) and [nowhere](#nowhere).',
    '',
    'The writer is `generator/output/write-out.ts`; the old one was `generator/spec/literals.ts`.',
    'Patterns such as `generator/emit/<backend>/` and links like [site](https://example.org) are not checked.',
    '',
    '```',
    'a fenced [link](gone-too.md) is code, not a link',
    '```',
  ].join('\n');
  assert.equal(
    checkDoc(file, text, root).map((p) => `${p.line}: ${p.message}`),
    [
      '3: link gone.md: docs/gone.md does not exist',
      '3: link #nowhere: no heading in docs/example.md has the anchor #nowhere',
      '5: `generator/spec/literals.ts` does not exist',
    ],
  );
});

test.run();

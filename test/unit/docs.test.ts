// The schema reference in docs/ is generated from the schema: it must be fresh.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { schemaMarkdown } from '../../generator/cli/schema-doc.js';
import { root } from '../helpers/paths.js';

test('docs/spec-schema.md is generated from the schema (run `npx opforge docs` when this fails)', () => {
  assert.is(readFileSync(path.join(root, 'docs', 'spec-schema.md'), 'utf8'), schemaMarkdown());
});

test('every schema property has a description', () => {
  const md = schemaMarkdown();
  for (const line of md.split('\n').filter((l) => l.startsWith('| `'))) {
    const cells = line.split(' | ');
    assert.ok((cells[3] ?? '').replace(/\s*\|\s*$/, '').trim().length > 0, `undocumented: ${line}`);
  }
});

test.run();

// Whose files are in the case folder. Every harness writes its outputs beside the cases' inputs
// (`<case>.<column>.<output>.bin`, and the PyTorch side's exported models): a harness's kept run
// hashes only the inputs, and keeps and restores only its own files, so harnesses running side
// by side never take, or bring back, each other's outputs.

import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';

/** Which harness wrote a file of the case folder (its path relative to the folder); 'case' for the inputs. */
export type CaseFileOwner = 'case' | 'paddle' | 'jax' | 'pytorch';

export function caseFileOwner(rel: string): CaseFileOwner {
  const base = path.basename(rel);
  // <case>.json (the case: attributes, dtypes) and <case>.in.<input>.bin, written by opforge test.
  if (/^\d+\.json$/.test(base) || /^\d+\.in\./.test(base)) return 'case';
  if (/^\d+\.paddle[.-]/.test(base)) return 'paddle';
  if (/^\d+\.jax[.-]/.test(base)) return 'jax';
  return 'pytorch';
}

/** The case folder's inputs (every case's document and input tensors), sorted: what a harness's key hashes. */
export function caseInputFiles(casesDir: string): string[] {
  if (!existsSync(casesDir)) return [];
  return readdirSync(casesDir, { recursive: true, encoding: 'utf8' })
    .filter((rel) => caseFileOwner(rel) === 'case')
    .map((rel) => path.join(casesDir, rel))
    .sort();
}

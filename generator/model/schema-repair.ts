// A spec with schema errors is still checked for its semantic errors where that is safe: the
// values the schema refused (an unknown key, an optional key of the wrong type) are taken out,
// and if what is left passes the schema, buildOp runs on it. One run then reports both kinds,
// not the semantic ones only after the schema ones are fixed.

import type { KeyPath } from './diagnostics.js';
import { formatPath } from './diagnostics.js';
import { schemaErrors, toKeyPath } from './schema-check.js';

export interface Repaired {
  value: unknown;
  /** The paths taken out (formatted): semantic errors at or under them are not reported. */
  removed: string[];
}

/** The value without what the schema refused, or undefined when removing it leaves it invalid. */
export function withoutSchemaErrors(value: unknown): Repaired | undefined {
  const paths: KeyPath[] = [];
  for (const e of schemaErrors(value)) {
    const at = toKeyPath(e.instancePath);
    if (e.keyword === 'additionalProperties') paths.push([...at, String(e.params.additionalProperty)]);
    else if (e.keyword === 'required' || at.length === 0) return undefined;
    else paths.push(at);
  }
  if (paths.length === 0) return undefined;
  const copy = structuredClone(value);
  for (const p of paths) {
    let parent: unknown = copy;
    for (const k of p.slice(0, -1)) parent = (parent as Record<string | number, unknown> | undefined)?.[k];
    // Removing an item of a list would renumber the items after it (and their messages).
    if (parent === null || typeof parent !== 'object' || Array.isArray(parent)) return undefined;
    delete (parent as Record<string, unknown>)[String(p[p.length - 1])];
  }
  if (schemaErrors(copy).length) return undefined;
  return { value: copy, removed: paths.map(formatPath) };
}

/** Whether a diagnostic's path is one of the removed paths or lies under one. */
export function underRemoved(path: string, removed: readonly string[]): boolean {
  return removed.some((r) => path === r || path.startsWith(`${r}.`) || path.startsWith(`${r}[`));
}

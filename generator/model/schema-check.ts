// Structural validation against schema/op.schema.json (the same file editors use), with
// ajv's errors turned into located diagnostics.

import { readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { Ajv as AjvType, ErrorObject, ValidateFunction } from 'ajv';
import type { Diagnostic, KeyPath } from './diagnostics.js';
import { didYouMean, shown } from './diagnostics.js';
import { diagAt, type LoadedSpec } from './load.js';
import { PKG_ROOT_URL } from '../pkg-root.js';

export const SCHEMA_URL = new URL('schema/op.schema.json', PKG_ROOT_URL);

interface SchemaNode {
  properties?: Record<string, SchemaNode>;
  definitions?: Record<string, SchemaNode>;
  $ref?: string;
  items?: SchemaNode;
  enum?: unknown[];
  type?: string | string[];
  oneOf?: SchemaNode[];
  anyOf?: SchemaNode[];
}

/** The build's precompiled validator (generator/tooling/build-validator.ts). */
export const VALIDATOR_URL = new URL('dist/generator/schema-validator.cjs', PKG_ROOT_URL);
export const AJV_OPTIONS = { allErrors: true, strict: true, allowUnionTypes: true } as const;

/** The validator inside the command's bundle (bundled-validator.ts); undefined unbundled. */
declare const opforgeBundledValidator: (() => unknown) | undefined;

let compiled: { validate: ValidateFunction; schema: SchemaNode } | undefined;

function compile(): { validate: ValidateFunction; schema: SchemaNode } {
  if (compiled) return compiled;
  const schema = JSON.parse(readFileSync(SCHEMA_URL, 'utf8')) as SchemaNode;
  const built = statSync(VALIDATOR_URL, { throwIfNoEntry: false });
  if (built && built.mtimeMs >= statSync(SCHEMA_URL).mtimeMs) {
    const bundled = typeof opforgeBundledValidator === 'function' ? opforgeBundledValidator : undefined;
    const mod = (bundled ? bundled() : createRequire(import.meta.url)(fileURLToPath(VALIDATOR_URL))) as {
      default: ValidateFunction;
    };
    compiled = { validate: mod.default, schema };
  } else {
    // Loaded only here: ajv's compiler is most of what the precompiled validator saves.
    const { Ajv } = createRequire(import.meta.url)('ajv') as { Ajv: typeof AjvType };
    compiled = { validate: new Ajv(AJV_OPTIONS).compile(schema), schema };
  }
  return compiled;
}

function toKeyPath(instancePath: string): (string | number)[] {
  if (instancePath === '') return [];
  return instancePath
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
}

/**
 * Property names the schema allows for the object at an instance path (for the message and
 * "did you mean"). Found by walking the path through the schema, not from ajv's schemaPath:
 * the precompiled validator gives a $ref'd definition's path from that definition
 * (`#/additionalProperties` for an input's key), which would name the top-level keys.
 */
function allowedProperties(schema: SchemaNode, keyPath: KeyPath, value: unknown): string[] {
  const deref = (n: SchemaNode | undefined): SchemaNode | undefined => {
    let node = n;
    for (let hops = 0; node?.$ref && hops < 8; hops++) {
      const name = /^#\/definitions\/(.+)$/.exec(node.$ref)?.[1];
      node = name ? schema.definitions?.[name] : undefined;
    }
    return node;
  };
  /** The branch of a oneOf/anyOf that describes this kind of value (an object's, an array's). */
  const branch = (n: SchemaNode | undefined, v: unknown): SchemaNode | undefined => {
    const node = deref(n);
    const alts = node?.oneOf ?? node?.anyOf;
    if (!alts) return node;
    const want = Array.isArray(v) ? 'array' : typeof v === 'object' && v !== null ? 'object' : undefined;
    return deref(alts.map(deref).find((a) => a?.type === want || (want === 'object' && a?.properties)));
  };
  let node = branch(schema, value);
  let v = value;
  for (const k of keyPath) {
    v = (v as Record<string | number, unknown> | undefined)?.[k];
    node = branch(typeof k === 'number' ? node?.items : node?.properties?.[k], v);
    if (!node) return [];
  }
  return Object.keys(node?.properties ?? {});
}

/** ajv's errors for a value (none when it is valid), for schema-repair.ts. */
export function schemaErrors(value: unknown): readonly ErrorObject[] {
  const { validate } = compile();
  return validate(value) ? [] : (validate.errors ?? []);
}

export { toKeyPath };

export function checkSchema(spec: LoadedSpec): Diagnostic[] {
  const { validate, schema } = compile();
  if (validate(spec.value)) return [];
  const errs = validate.errors ?? [];
  const out: Diagnostic[] = [];
  const byPath = new Map<string, ErrorObject[]>();
  for (const e of errs) {
    const list = byPath.get(e.instancePath) ?? [];
    list.push(e);
    byPath.set(e.instancePath, list);
  }
  for (const [instancePath, list] of [...byPath.entries()].sort((a, b) => a[0].localeCompare(b[0]))) {
    const keyPath: KeyPath = toKeyPath(instancePath);
    // A oneOf failure repeats its branches' errors; fold the branch type errors into one message.
    const types = list.filter((e) => e.keyword === 'type').map((e) => String(e.params.type));
    const others = list.filter((e) => e.keyword !== 'type' && e.keyword !== 'oneOf');
    if (types.length && !others.length) {
      out.push(
        diagAt(spec, keyPath, `expected ${[...new Set(types)].join(' or ')}, got ${shown(getAt(spec.value, keyPath))}`),
      );
      continue;
    }
    for (const e of others) out.push(fromAjv(spec, schema, keyPath, e));
  }
  return out;
}

function fromAjv(spec: LoadedSpec, schema: SchemaNode, keyPath: KeyPath, e: ErrorObject): Diagnostic {
  switch (e.keyword) {
    case 'additionalProperties': {
      const key = String(e.params.additionalProperty);
      const allowed = allowedProperties(schema, keyPath, spec.value);
      return diagAt(
        spec,
        [...keyPath, key],
        `unknown key \`${key}\`${allowed.length ? `; expected one of ${allowed.join(', ')}` : ''}`,
        {
          at: 'key',
          hint: didYouMean(key, allowed),
        },
      );
    }
    case 'required': {
      const key = String(e.params.missingProperty);
      return diagAt(spec, keyPath, `missing required key \`${key}\``, { at: 'value' });
    }
    case 'enum': {
      const allowed = (e.params.allowedValues as unknown[]).map(String);
      const got = String(getAt(spec.value, keyPath));
      return diagAt(spec, keyPath, `expected one of ${allowed.join(', ')}, got \`${got}\``, {
        hint: didYouMean(got, allowed),
      });
    }
    case 'pattern':
      return diagAt(
        spec,
        keyPath,
        `\`${String(getAt(spec.value, keyPath))}\` does not match ${String(e.params.pattern)}`,
      );
    default:
      return diagAt(spec, keyPath, `${e.message ?? e.keyword}, got ${shown(getAt(spec.value, keyPath))}`);
  }
}

function getAt(value: unknown, keyPath: KeyPath): unknown {
  let v = value;
  for (const k of keyPath) v = (v as Record<string | number, unknown> | undefined)?.[k];
  return v;
}

// The project namespace: package.json's `"opforge": { "namespace": "acme_ops" }` names the
// project's Python packages, torch namespace, default ONNX domain and libraries, so that two op
// sets coexist in one process (docs/decisions.md, "Project namespace"). Without it, opforge's own
// names, as every project had before.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Diagnostic } from './diagnostics.js';
import type { ProjectNames } from './ir.js';

/** opforge's own names: a project whose package.json sets no namespace. */
export const DEFAULT_NAMES: ProjectNames = Object.freeze({
  namespace: undefined,
  torchPackage: 'opforge_ops',
  jaxPackage: 'opforge_jax',
  paddlePackage: 'opforge_paddle',
  torchNamespace: 'opforge',
  defaultDomain: 'custom',
  libraryPrefix: 'opforge',
});

/** The names a namespace derives: the PyTorch package is the namespace itself, the others append their framework. */
export function namesOf(namespace: string): ProjectNames {
  return {
    namespace,
    torchPackage: namespace,
    jaxPackage: `${namespace}_jax`,
    paddlePackage: `${namespace}_paddle`,
    torchNamespace: namespace,
    defaultDomain: namespace,
    libraryPrefix: namespace,
  };
}

const KEY = 'opforge.namespace';
/** Lowercase, as Python packages and ONNX domains are by convention; C++ and Python identifiers both. */
const IDENT = /^[a-z][a-z0-9_]*$/;
const MAX_LENGTH = 64;
/** Python keywords, and the modules the packages import (a package of that name would shadow it). */
const RESERVED = new Set([
  ...'and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield'.split(
    ' ',
  ),
  'torch',
  'jax',
  'jaxlib',
  'paddle',
  'onnx',
  'onnxruntime',
  'onnxscript',
  'numpy',
]);

/** The project's package.json, read once: its text, the name diagnostics give it, and its JSON (or the parse error). */
interface PackageJson {
  text: string;
  display: string;
  json: unknown;
  parseError: Error | undefined;
}

function readPackageJson(root: string): PackageJson | undefined {
  const file = path.join(root, 'package.json');
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const display = path.relative(process.cwd(), file) || file;
  try {
    return { text, display, json: JSON.parse(text), parseError: undefined };
  } catch (e) {
    return { text, display, json: undefined, parseError: e as Error };
  }
}

/** A diagnostic at `key` of package.json. */
function at(pkg: PackageJson, key: string, message: string): Diagnostic {
  return { file: pkg.display, ...lineOf(pkg.text, key), path: key, message };
}

/**
 * The names of the project at `root`, from its package.json (none, or none with an `opforge`
 * key: opforge's own); an invalid `opforge.namespace` is a diagnostic naming the file and key.
 */
export function readProjectNames(root: string): { names: ProjectNames; errors: Diagnostic[] } {
  return namesFrom(readPackageJson(root));
}

/** The project's names and the version its wheel carries, from one reading of its package.json. */
export function readProjectConfig(root: string): { names: ProjectNames; version: string; errors: Diagnostic[] } {
  const pkg = readPackageJson(root);
  const named = namesFrom(pkg);
  const versioned = versionOf(pkg);
  return { names: named.names, version: versioned.version, errors: [...named.errors, ...versioned.errors] };
}

function namesFrom(pkg: PackageJson | undefined): { names: ProjectNames; errors: Diagnostic[] } {
  if (pkg === undefined) return { names: DEFAULT_NAMES, errors: [] };
  const fail = (key: string, message: string): { names: ProjectNames; errors: Diagnostic[] } => ({
    names: DEFAULT_NAMES,
    errors: [at(pkg, key, message)],
  });
  if (pkg.parseError) {
    // Only a package.json that means to configure opforge is ours to refuse.
    if (!pkg.text.includes('"opforge"')) return { names: DEFAULT_NAMES, errors: [] };
    return fail('opforge', `package.json is not valid JSON: ${pkg.parseError.message}`);
  }
  const config = (pkg.json as { opforge?: unknown } | null)?.opforge;
  if (config === undefined) return { names: DEFAULT_NAMES, errors: [] };
  if (typeof config !== 'object' || config === null || Array.isArray(config))
    return fail('opforge', `\`opforge\` in package.json must be an object (e.g. { "namespace": "acme_ops" })`);
  const ns = (config as { namespace?: unknown }).namespace;
  if (ns === undefined) return { names: DEFAULT_NAMES, errors: [] };
  if (typeof ns !== 'string' || !IDENT.test(ns) || ns.length > MAX_LENGTH)
    return fail(
      KEY,
      `\`${KEY}\` in package.json must be a lowercase identifier (a letter, then letters, digits or _; at most ${MAX_LENGTH}), e.g. "acme_ops"; got ${JSON.stringify(ns)}`,
    );
  if (RESERVED.has(ns))
    return fail(
      KEY,
      `\`${KEY}\` in package.json is \`${ns}\`, which Python reserves or the packages import: choose another`,
    );
  return { names: namesOf(ns), errors: [] };
}

/** PEP 440's version grammar (its appendix B, as the `packaging` library spells it), anchored. */
const PEP440 =
  /^v?(?:[0-9]+!)?[0-9]+(?:\.[0-9]+)*(?:[-_.]?(?:alpha|a|beta|b|preview|pre|c|rc)[-_.]?[0-9]*)?(?:-[0-9]+|[-_.]?(?:post|rev|r)[-_.]?[0-9]*)?(?:[-_.]?dev[-_.]?[0-9]*)?(?:\+[a-z0-9]+(?:[-_.][a-z0-9]+)*)?$/i;

/** A project without a package.json version: what its wheel is numbered. */
export const DEFAULT_VERSION = '0.0.0';

/**
 * The version the project's wheel carries: package.json's `version` (npm's semver, which pip reads
 * as PEP 440 for the forms both share: `1.2.3`, `1.2.3-rc.1`); a version pip cannot read is a
 * diagnostic naming the file and key.
 */
function versionOf(pkg: PackageJson | undefined): { version: string; errors: Diagnostic[] } {
  const version = (pkg?.json as { version?: unknown } | null | undefined)?.version;
  if (pkg === undefined || version === undefined) return { version: DEFAULT_VERSION, errors: [] };
  if (typeof version === 'string' && PEP440.test(version)) return { version, errors: [] };
  return {
    version: DEFAULT_VERSION,
    errors: [
      at(
        pkg,
        'version',
        `\`version\` in package.json must be a version pip reads too (PEP 440: e.g. "1.2.3", "1.2.3-rc.1"), as it numbers the project's wheel; got ${JSON.stringify(version)}`,
      ),
    ],
  };
}

/** Where `"key"` (its last segment) first stands in the text, for the diagnostic. */
function lineOf(text: string, key: string): { line: number; col: number } {
  const at = text.indexOf(`"${key.split('.').pop()}"`);
  if (at < 0) return { line: 1, col: 1 };
  const before = text.slice(0, at).split('\n');
  return { line: before.length, col: before[before.length - 1]!.length + 1 };
}

// Locations tests share. Tests run from dist/test, sources live in test/.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Repository root. */
export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const fixtures = path.join(root, 'test', 'fixtures');
export const opsDir = path.join(root, 'ops');
export const outDir = path.join(root, 'out');

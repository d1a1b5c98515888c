// A spec text's identity: the incremental load reuses an op built from the same hash, and out/'s
// stamp records it for each spec (generator/output/stamp.ts).

import { createHash } from 'node:crypto';

export const specHash = (text: string): string => createHash('sha256').update(text).digest('hex');

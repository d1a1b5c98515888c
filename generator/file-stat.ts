// The stat the no-op and incremental checks compare.

import { statSync } from 'node:fs';

/** "size:mtime" of a file, or "-" when it is missing. */
export function fileStat(file: string): string {
  const st = statSync(file, { throwIfNoEntry: false });
  return st ? `${st.size}:${st.mtimeMs}` : '-';
}

// The README's quickstart blocks: each `<!-- quickstart: PATH -->` marker and the fenced block after it.

/** path -> content, with the list item's indentation removed. */
export function quickstartBlocks(readme: string): Map<string, string> {
  return markedBlocks(readme, 'quickstart');
}

/** The README's blocks marked `<!-- <kind>: NAME -->` (e.g. `ship: build`), by NAME, unindented as quickstartBlocks does. */
export function markedBlocks(readme: string, kind: string): Map<string, string> {
  const blocks = new Map<string, string>();
  const re = new RegExp(`^([ \\t]*)<!-- ${kind}: (\\S+) -->\\n\\1\`\`\`\\w*\\n([\\s\\S]*?)\\n\\1\`\`\`$`, 'gm');
  for (const m of readme.matchAll(re)) {
    const indent = m[1]!;
    const body = m[3]!
      .split('\n')
      .map((l) => (l.startsWith(indent) ? l.slice(indent.length) : l))
      .join('\n');
    blocks.set(m[2]!, `${body}\n`);
  }
  return blocks;
}

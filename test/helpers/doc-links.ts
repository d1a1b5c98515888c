// Finds what a Markdown doc points at that does not exist: relative links (and their #anchors,
// matched against heading slugs as GitHub makes them) and backticked repo paths. Parsing is
// markdown-it's and slugging github-slugger's, so what counts as a link or a heading is what a
// Markdown renderer sees, not what a regex guesses (links inside code spans are not links).
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import GithubSlugger from 'github-slugger';
import MarkdownIt, { type Token } from 'markdown-it';

const md = new MarkdownIt({ html: true });

/** A link with a scheme (https:, mailto:) points outside the repo: not checked here. */
const EXTERNAL = /^[a-z][a-z0-9+.-]*:/i;

/**
 * Backticked text that reads as a repo path: one of the source roots, then path segments, ending
 * in a file extension or a `/` (a folder). Placeholders and globs (`<op>`, `*`, `{a,b}`) are
 * patterns, not paths, and are left alone.
 */
const REPO_PATH = /^(?:generator|runtime|test|scripts)\/[\w.@+-]+(?:\/[\w.@+-]+)*(?:\.[A-Za-z0-9]+|\/)$/;

export interface DocProblem {
  file: string;
  line: number;
  message: string;
}

/**
 * The inline tokens of a document with the source line each is on (1-based). Table cells carry no
 * line of their own: they get the line of the block around them.
 */
function inlines(tokens: Token[]): { token: Token; line: number }[] {
  let line = 1;
  const found: { token: Token; line: number }[] = [];
  for (const token of tokens) {
    if (token.map) line = token.map[0] + 1;
    if (token.type === 'inline') found.push({ token, line });
  }
  return found;
}

/** A heading's text as rendered (code spans keep their content, emphasis and link markup go). */
function headingText(inline: Token): string {
  return (inline.children ?? [])
    .filter((c) => c.type === 'text' || c.type === 'code_inline')
    .map((c) => c.content)
    .join('');
}

/** `<a id="...">` / `<a name="...">` in a doc's HTML: anchors GitHub keeps as written. */
const HTML_ANCHOR = /<a\s[^>]*\b(?:id|name)="([^"]+)"/g;

/**
 * The anchors a document offers: GitHub's heading slugs (duplicates numbered as it numbers them)
 * and explicit HTML anchors.
 */
export function headingSlugs(text: string): Set<string> {
  const slugger = new GithubSlugger();
  const tokens = md.parse(text, {});
  const slugs = new Set<string>();
  tokens.forEach((t, i) => {
    const inline = tokens[i + 1];
    if (t.type === 'heading_open' && inline?.type === 'inline') slugs.add(slugger.slug(headingText(inline)));
    const html = [t, ...(t.children ?? [])].filter((h) => h.type === 'html_block' || h.type === 'html_inline');
    for (const h of html) for (const m of h.content.matchAll(HTML_ANCHOR)) slugs.add(m[1]!);
  });
  return slugs;
}

/** Where a link or image points, or null for any other token. */
function target(child: Token): string | null {
  const attr =
    child.type === 'link_open' ? child.attrGet('href') : child.type === 'image' ? child.attrGet('src') : null;
  return attr === null ? null : String(attr);
}

/** What is wrong with one relative link of `file`, or undefined; `slugsOf` gives a doc's anchors. */
function linkProblem(
  file: string,
  href: string,
  root: string,
  slugsOf: (doc: string) => Set<string>,
): string | undefined {
  const hash = href.indexOf('#');
  const where = hash < 0 ? href : href.slice(0, hash);
  const anchor = hash < 0 ? undefined : decodeURIComponent(href.slice(hash + 1));
  const resolved = where === '' ? file : path.resolve(path.dirname(file), decodeURIComponent(where));
  if (resolved !== file && !existsSync(resolved))
    return `link ${href}: ${path.relative(root, resolved)} does not exist`;
  if (anchor === undefined) return undefined;
  if (!resolved.endsWith('.md') || (resolved !== file && statSync(resolved).isDirectory())) {
    return `link ${href}: an anchor into something that is not a Markdown file`;
  }
  if (!slugsOf(resolved).has(anchor)) {
    return `link ${href}: no heading in ${path.relative(root, resolved)} has the anchor #${anchor}`;
  }
  return undefined;
}

/** Every problem in one document; `file` is its path, `root` the repository root. */
export function checkDoc(file: string, text: string, root: string): DocProblem[] {
  const problems: DocProblem[] = [];
  const slugCache = new Map<string, Set<string>>();
  const slugsOf = (doc: string) => {
    let slugs = slugCache.get(doc);
    if (!slugs) slugCache.set(doc, (slugs = headingSlugs(doc === file ? text : readFileSync(doc, 'utf8'))));
    return slugs;
  };
  for (const { token, line } of inlines(md.parse(text, {}))) {
    for (const child of token.children ?? []) {
      let message: string | undefined;
      if (child.type === 'code_inline' && REPO_PATH.test(child.content)) {
        if (!existsSync(path.join(root, child.content))) message = `\`${child.content}\` does not exist`;
      } else {
        const href = target(child);
        if (href !== null && !EXTERNAL.test(href)) message = linkProblem(file, href, root, slugsOf);
      }
      if (message) problems.push({ file: path.relative(root, file), line, message });
    }
  }
  return problems;
}

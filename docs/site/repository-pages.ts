import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';

// The guides link to repository files (`examples/auth.ts`, `../packages/testing/src/index.ts`) so that
// they read well on a code host. A static site has no such files, so each linked file (and each file
// under a linked folder) gets a page of its own under `repo/`: code in a block, Markdown rendered,
// folders as a list. The links are rewritten to those pages; the guides themselves stay as they are.

/** The folder under the site's source root that holds the generated repository pages (git-ignored). */
export const REPOSITORY_PAGES = 'repo';

const SKIPPED_FOLDERS = new Set(['node_modules', 'dist']);
const LANGUAGES: Record<string, string> = { ts: 'ts', mts: 'ts', js: 'js', mjs: 'js', cjs: 'js', json: 'json', yaml: 'yaml', yml: 'yaml' };

export interface RepositoryLayout {
  /** The repository's root folder. */
  readonly repoRoot: string;
  /** The site's source folder (the docs package), relative to `repoRoot`, posix style: `docs`. */
  readonly docsFolder: string;
}

/** The repository path a site page stands for: `getting-started.md` -> `docs/getting-started.md`. */
export function repositoryPathOf(layout: RepositoryLayout, sitePage: string): string {
  const prefix = `${REPOSITORY_PAGES}/`;
  return sitePage.startsWith(prefix) ? sitePage.slice(prefix.length) : posix.join(layout.docsFolder, sitePage);
}

/**
 * Where a relative link written in `fromRepositoryPath` leads on the site, as an absolute `.md` link
 * VitePress then turns into a page URL; `undefined` for links that are not relative or lead nowhere
 * (those are left alone so the checks report them).
 */
export function siteLinkOf(layout: RepositoryLayout, fromRepositoryPath: string, href: string): string | undefined {
  if (href === '' || href.startsWith('#') || href.startsWith('/') || /^[a-z][a-z0-9+.-]*:/i.test(href)) return undefined;
  const [path = '', hash] = href.split('#', 2);
  const target = posix.normalize(posix.join(posix.dirname(fromRepositoryPath), path));
  const full = join(layout.repoRoot, target);
  if (target.startsWith('..') || !existsSync(full)) return undefined;
  const anchor = hash === undefined ? '' : `#${hash}`;
  const guide = posix.relative(layout.docsFolder, target);
  if (!guide.startsWith('..') && !guide.includes('/') && guide.endsWith('.md'))
    return `/${guide === 'README.md' ? 'index.md' : guide}${anchor}`;
  if (statSync(full).isDirectory()) return `/${REPOSITORY_PAGES}/${target.replace(/\/$/, '')}/index.md`;
  return `/${REPOSITORY_PAGES}/${target}${target.endsWith('.md') ? '' : '.md'}${anchor}`;
}

/** Images the guides show (`![alt](images/x.png)`): VitePress serves those itself, they get no page. */
const IMAGE = /\.(png|jpe?g|gif|svg|webp)$/i;

/** Relative link targets of a Markdown text (the same syntax the guides use: `[text](target)`), images left out. */
function linksOf(markdown: string): string[] {
  return [...markdown.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1] as string).filter((target) => !IMAGE.test(target));
}

function fenceFor(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((match) => match[0].length));
  return '`'.repeat(longest + 1);
}

/** A folder's entries, each linked to its page when the guides link to it too (`paged`), else named. */
function folderPage(layout: RepositoryLayout, folder: string, paged: ReadonlySet<string>): string {
  const entries = readdirSync(join(layout.repoRoot, folder), { withFileTypes: true })
    .filter((entry) => !entry.name.startsWith('.') && !SKIPPED_FOLDERS.has(entry.name))
    .map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name))
    .sort();
  const list = entries.map((entry) => {
    const path = `${folder}/${entry}`;
    return paged.has(path) ? `- [${entry}](/${REPOSITORY_PAGES}/${pagePathOf(path)})` : `- \`${entry}\``;
  });
  return `# ${folder}/\n\n${list.join('\n')}\n`;
}

function filePage(layout: RepositoryLayout, path: string): string {
  const text = readFileSync(join(layout.repoRoot, path), 'utf8');
  if (path.endsWith('.md')) return text;
  const fence = fenceFor(text);
  const language = LANGUAGES[posix.extname(path).slice(1)] ?? 'text';
  return `# ${posix.basename(path)}\n\n\`${path}\`\n\n${fence}${language}\n${text.trimEnd()}\n${fence}\n`;
}

function pagePathOf(path: string): string {
  if (path.endsWith('/')) return `${path}index.md`;
  return path.endsWith('.md') ? path : `${path}.md`;
}

/**
 * Writes a page under `<docs>/repo/` for every repository file or folder the given site pages link to
 * (following the links of linked Markdown files too), after removing the previous ones. Returns the
 * repository paths given a page (folders end with `/`).
 */
export function writeRepositoryPages(layout: RepositoryLayout, sitePages: readonly string[]): string[] {
  const linked = new Set<string>();
  const pending = sitePages.map((page) => repositoryPathOf(layout, page));
  const read = (path: string) => readFileSync(join(layout.repoRoot, path), 'utf8');
  for (let from = pending.pop(); from !== undefined; from = pending.pop()) {
    for (const href of linksOf(read(from))) {
      if (!siteLinkOf(layout, from, href)?.startsWith(`/${REPOSITORY_PAGES}/`)) continue;
      const target = posix.normalize(posix.join(posix.dirname(from), href.split('#')[0] as string)).replace(/\/$/, '');
      const path = statSync(join(layout.repoRoot, target)).isDirectory() ? `${target}/` : target;
      if (linked.has(path)) continue;
      linked.add(path);
      if (path.endsWith('.md')) pending.push(path);
    }
  }
  const outRoot = join(layout.repoRoot, layout.docsFolder, REPOSITORY_PAGES);
  rmSync(outRoot, { recursive: true, force: true });
  for (const path of linked) {
    const file = join(outRoot, pagePathOf(path));
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, path.endsWith('/') ? folderPage(layout, path.slice(0, -1), linked) : filePage(layout, path));
  }
  return [...linked].sort();
}

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface SidebarLink {
  readonly text: string;
  readonly link: string;
}

/**
 * The guides in the order of the "Pages" table of docs/README.md, then any guide the table misses (by
 * its first heading), so a new page is never left out of the navigation.
 */
export function guideSidebar(docsRoot: string): SidebarLink[] {
  const readme = readFileSync(join(docsRoot, 'README.md'), 'utf8');
  const listed = [...readme.matchAll(/^\| \[([^\]]+)\]\(([\w-]+\.md)\)/gm)].map(([, text, page]) => ({
    text: text as string,
    page: page as string,
  }));
  const pages = readdirSync(docsRoot).filter((name) => name.endsWith('.md') && name !== 'README.md');
  const unlisted = pages
    .filter((page) => !listed.some((entry) => entry.page === page))
    .sort()
    .map((page) => ({ text: /^# (.+)$/m.exec(readFileSync(join(docsRoot, page), 'utf8'))?.[1] ?? page, page }));
  return [...listed.filter((entry) => pages.includes(entry.page)), ...unlisted].map(({ text, page }) => ({
    text,
    link: `/${page.replace(/\.md$/, '')}`,
  }));
}

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitepress';
import { githubSlug } from '../site/github-slug.js';
import { guideSidebar } from '../site/guide-sidebar.js';
import { REPOSITORY_PAGES, repositoryPathOf, siteLinkOf, writeRepositoryPages } from '../site/repository-pages.js';

const docsRoot = fileURLToPath(new URL('..', import.meta.url));
const layout = { repoRoot: join(docsRoot, '..'), docsFolder: 'docs' };
const apiSidebarFile = join(docsRoot, 'api', 'typedoc-sidebar.json');
if (!existsSync(apiSidebarFile)) {
  throw new Error(
    'docs/.vitepress/config: the API reference is missing. Fix: run `pnpm --filter @armature/docs docs:api` (docs:build and docs:dev run it first).',
  );
}

// Pages are scanned after this file loads, so the repository pages the guides link to exist by then.
const guides = readdirSync(docsRoot).filter((name) => name.endsWith('.md'));
writeRepositoryPages(layout, guides);

interface LinkToken {
  type: string;
  children: LinkToken[] | null;
  attrGet(name: string): string | null;
  attrSet(name: string, value: string): void;
}

export default defineConfig({
  title: 'Armature',
  description: 'Decorator-based TypeScript framework for MCP servers',
  lang: 'en',
  outDir: 'dist',
  srcExclude: ['examples/**', 'test/**', 'site/**', 'dist/**', '.site-test-output/**'],
  // docs/README.md is the guides' landing page on a code host and the site's home page.
  rewrites: { 'README.md': 'index.md' },
  markdown: {
    anchor: { slugify: githubSlug },
    headers: { slugify: githubSlug },
    config(md) {
      md.core.ruler.push('repository-links', (state) => {
        const page = (state.env as { relativePath: string }).relativePath;
        // TypeDoc's pages link among themselves only, with paths VitePress resolves as they are.
        if (page.startsWith('api/')) return;
        const from = repositoryPathOf(layout, page);
        const visit = (tokens: LinkToken[]) => {
          for (const token of tokens) {
            if (token.children) visit(token.children);
            if (token.type !== 'link_open') continue;
            const link = siteLinkOf(layout, from, token.attrGet('href') ?? '');
            if (link) token.attrSet('href', link);
          }
        };
        visit(state.tokens as unknown as LinkToken[]);
      });
    },
  },
  themeConfig: {
    nav: [
      { text: 'Guides', link: '/' },
      { text: 'API reference', link: '/api/' },
      { text: 'README', link: `/${REPOSITORY_PAGES}/README` },
    ],
    sidebar: [
      { text: 'Guides', items: [{ text: 'Overview', link: '/' }, ...guideSidebar(docsRoot)] },
      { text: 'API reference', link: '/api/', items: JSON.parse(readFileSync(apiSidebarFile, 'utf8')) },
    ],
    search: { provider: 'local' },
    outline: { level: [2, 3] },
  },
});

import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { githubSlug } from '../site/github-slug.js';
import { repositoryPathOf, siteLinkOf } from '../site/repository-pages.js';
import { DOCS_ROOT } from './support/markdown-includes.js';

// How the site turns the guides' repository links and headings into its own URLs and anchors.
const layout = { repoRoot: join(DOCS_ROOT, '..'), docsFolder: 'docs' };

describe('githubSlug', () => {
  it.each([
    ['tsconfig.json', 'tsconfigjson'],
    ['Step-up: 403 insufficient_scope', 'step-up-403-insufficient_scope'],
    ['Several instances behind a load balancer', 'several-instances-behind-a-load-balancer'],
    ['`abstract` Context', 'abstract-context'],
  ])('%s -> %s', (heading, slug) => expect(githubSlug(heading)).toBe(slug));
});

describe('siteLinkOf', () => {
  const from = repositoryPathOf(layout, 'getting-started.md');

  it('keeps links between guides on the site, the guides README being the home page', () => {
    expect(from).toBe('docs/getting-started.md');
    expect(siteLinkOf(layout, from, 'middleware.md#production-mode')).toBe('/middleware.md#production-mode');
    expect(siteLinkOf(layout, from, 'README.md')).toBe('/index.md');
  });

  it('sends links to repository files and folders to their generated pages', () => {
    expect(siteLinkOf(layout, from, 'examples/auth.ts')).toBe('/repo/docs/examples/auth.ts.md');
    expect(siteLinkOf(layout, from, 'examples/getting-started/')).toBe('/repo/docs/examples/getting-started/index.md');
    expect(siteLinkOf(layout, from, '../packages/testing/src/index.ts')).toBe('/repo/packages/testing/src/index.ts.md');
    expect(siteLinkOf(layout, from, '../README.md')).toBe('/repo/README.md');
    expect(siteLinkOf(layout, repositoryPathOf(layout, 'repo/README.md'), 'docs/README.md')).toBe('/index.md');
  });

  it('leaves anchors, absolute, external and dangling links alone', () => {
    for (const href of [
      '#install',
      '/api/',
      'https://modelcontextprotocol.io',
      'mailto:a@b.c',
      'examples/missing.ts',
      '../../outside.md',
    ]) {
      expect(siteLinkOf(layout, from, href), href).toBeUndefined();
    }
  });
});

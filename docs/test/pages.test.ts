import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  brokenLinks,
  DOCS_ROOT,
  listPages,
  normalizeTables,
  readRegions,
  scanPage,
  sourceText,
  splitTableRows,
  syncPage,
} from './support/markdown-includes.js';

const GUIDES = [
  'README.md',
  'getting-started.md',
  'tools-and-dtos.md',
  'context.md',
  'dependency-injection.md',
  'errors-and-results.md',
  'resources.md',
  'prompts.md',
  'completions.md',
  'elicitation.md',
  'sampling.md',
  'tasks.md',
  'middleware.md',
  'guards.md',
  'auth.md',
  'deployment.md',
  'scale-out.md',
  'security.md',
  'limits.md',
  'rate-limits.md',
  'observability.md',
  'publishing.md',
  'openapi.md',
];

it('docs/ holds every guide page', () => {
  expect(listPages()).toEqual(expect.arrayContaining(GUIDES));
});

// UPDATE_DOCS=1 rewrites every marked block from its source first (for maintainers, never in CI).
if (process.env.UPDATE_DOCS === '1') for (const page of listPages()) await syncPage(page);

describe.each(listPages())('%s', (page) => {
  const scan = scanPage(page);

  it('shows code only through include/output markers, and at least one include', () => {
    expect(scan.problems).toEqual([]);
    expect(scan.markers.filter((m) => m.kind === 'include').length).toBeGreaterThan(0);
  });

  it('matches every included region exactly', async () => {
    for (const marker of scan.markers.filter((m) => m.kind === 'include')) {
      const label = `${page}:${marker.line} (${marker.file}${marker.key ? `#${marker.key}` : ''})`;
      expect(existsSync(join(DOCS_ROOT, marker.file)), `${label}: file exists`).toBe(true);
      if (marker.key === undefined) {
        expect(marker.body, label).toBe(readFileSync(join(DOCS_ROOT, marker.file), 'utf8').trimEnd());
        continue;
      }
      const regions = readRegions(marker.file);
      expect(regions.has(marker.key), `${label}: region exists`).toBe(true);
      expect(marker.body, label).toBe(await sourceText('include', marker.file, marker.key, marker.withImports));
    }
  });

  it('matches every output the examples produce', async () => {
    for (const marker of scan.markers.filter((m) => m.kind === 'output')) {
      const label = `${page}:${marker.line} (${marker.file}#${marker.key})`;
      const module = (await import(join(DOCS_ROOT, marker.file))) as { outputs?: Record<string, string> };
      expect(module.outputs?.[marker.key as string], `${label}: the example exports outputs[key]`).toBeTypeOf('string');
      const output = module.outputs?.[marker.key as string] ?? '';
      // Formatters re-wrap JSON and pad tables: compare JSON by value and tables without padding.
      if (marker.language === 'json') expect(JSON.parse(marker.body), label).toEqual(JSON.parse(output));
      else expect(normalizeTables(marker.body), label).toBe(normalizeTables(output));
    }
  });

  it('has tables whose rows have as many cells as their header (every | in a cell escaped)', () => {
    expect(splitTableRows(page)).toEqual([]);
  });

  it('links only to files that exist', () => {
    expect(brokenLinks(page, existsSync)).toEqual([]);
  });
});

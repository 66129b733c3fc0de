import { findProject } from '../util/project.js';
import { findUndecoratedProperties } from './find-undecorated-properties.js';
import { formatCatalogue, type InspectFormat } from './format-catalogue.js';
import { type Finding, lintCatalogue } from './lint-catalogue.js';
import { type Catalogue, loadCatalogue } from './load-catalogue.js';
import { formatServerCard } from './server-card.js';
import { formatServerJson, type PublishManifest } from './server-json.js';

export interface InspectOptions {
  /** The module that exports the app (default `src/app.ts`). */
  entry?: string;
  format?: InspectFormat;
  /** `server-card`: the endpoint's public URL, written as the card's `remotes` entry. */
  url?: string;
  cwd?: string;
}

export interface InspectResult {
  readonly catalogue: Catalogue;
  readonly findings: readonly Finding[];
  /** The report in the asked format. */
  readonly output: string;
}

/** `armature inspect`: loads the project's app from its TypeScript sources, then prints and lints its catalogue. */
export async function inspectProject(options: InspectOptions = {}): Promise<InspectResult> {
  const project = findProject(options.cwd ?? process.cwd());
  const catalogue = await loadCatalogue(project.root, options.entry);
  const findings = [...lintCatalogue(catalogue), ...findUndecoratedProperties(project.root)];
  const format = options.format ?? 'text';
  const manifest = project.pkg as PublishManifest;
  const output =
    format === 'server-json'
      ? formatServerJson(catalogue, manifest)
      : format === 'server-card'
        ? await formatServerCard(catalogue, manifest, options.url)
        : formatCatalogue(format, catalogue, findings);
  return { catalogue, findings, output };
}

import { applyPlan } from '../util/file-plan.js';
import { formatWithBiome } from '../util/format.js';
import { findProject, isNestProject } from '../util/project.js';
import type { Ui } from '../util/ui.js';
import { planApp } from './generate-app.js';
import { GENERATE_KINDS, GenerateError, type GenerateKind, type GenerateOptions, type GeneratePlan } from './generate-context.js';
import { planDto } from './generate-dto.js';
import { planOpenApi } from './generate-openapi.js';
import { planPrompt } from './generate-prompt.js';
import { planResource } from './generate-resource.js';
import { planServer } from './generate-server.js';
import { planSkill } from './generate-skill.js';
import { planTool } from './generate-tool.js';

export interface GenerateResult {
  readonly root: string;
  readonly plan: GeneratePlan;
  readonly written: readonly string[];
}

/**
 * `armature generate <kind> <name>` in the project around `cwd`: plans every file first, refuses to
 * overwrite any without `force` (nothing is written then), writes, and formats what it wrote with
 * the project's Biome.
 */
export async function generate(kind: string, name: string, options: GenerateOptions & { cwd?: string }, ui: Ui): Promise<GenerateResult> {
  if (!GENERATE_KINDS.includes(kind as GenerateKind)) {
    throw new GenerateError(`unknown kind "${kind}". Kinds: ${GENERATE_KINDS.join(', ')}`);
  }
  if (!name || name.trim() === '') throw new GenerateError(`a name is needed: armature generate ${kind} <name>`);
  const project = findProject(options.cwd ?? process.cwd());
  let plan: GeneratePlan;
  switch (kind as GenerateKind) {
    case 'server':
      if (isNestProject(project)) {
        throw new GenerateError(
          'in a Nest project a server is a Nest provider, which armature generate server does not write (it registers classes in src/app.ts).\n' +
            "Fix: add a class with @McpServer({ name: '...', version: '0.1.0' }) above @Injectable() to the providers of a module AppModule imports; then armature generate tool <name> --server <it> fills it.",
        );
      }
      plan = planServer(project, name);
      break;
    case 'tool':
      plan = await planTool(project, name, options, ui);
      break;
    case 'dto':
      plan = await planDto(project, name, options, ui);
      break;
    case 'resource':
      plan = await planResource(project, name, options, ui);
      break;
    case 'prompt':
      plan = await planPrompt(project, name, options, ui);
      break;
    case 'openapi':
      plan = await planOpenApi(project, name, options, options.cwd ?? process.cwd(), ui);
      break;
    case 'app':
      plan = await planApp(project, name, options, ui);
      break;
    case 'skill':
      plan = await planSkill(project, name, options, ui);
      break;
  }
  const applied = applyPlan(project.root, plan.files, { force: options.force, dryRun: options.dryRun });
  ui.note(
    applied.lines.join('\n'),
    options.dryRun ? `Would generate ${plan.summary} (dry run: nothing written)` : `Generated ${plan.summary}`,
  );
  if (!options.dryRun && options.format !== false) {
    const formatted = formatWithBiome(project.root, applied.written);
    if (!formatted.ran) {
      ui.info(
        formatted.output
          ? "This project's Biome cannot skip style/useImportType (Biome 2 can), whose fix would break the imports that decorators read: the files are written as generated."
          : 'Biome is not installed in this project: the files are written as generated.',
      );
    }
  }
  if (!options.dryRun && plan.next) ui.info(`Next: ${plan.next}`);
  return { root: project.root, plan, written: applied.written };
}

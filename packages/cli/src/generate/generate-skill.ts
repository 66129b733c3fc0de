import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { kebabCase, sentenceCase } from '../util/names.js';
import { importPath, isNestProject, type Project } from '../util/project.js';
import { ensureNamedImports, findClassBody } from '../util/source-edit.js';
import { tsLiteral } from '../util/ts-literal.js';
import type { Ui } from '../util/ui.js';
import { GenerateError, type GenerateOptions, type GeneratePlan, resolveServer, testPath } from './generate-context.js';
import { importLine } from './render.js';

/** The folder of the project's skills, resolved from the working directory the server runs in. */
const SKILLS_FOLDER = 'skills';
/** The Agent Skills naming rules (SEP-2640 checks them too). */
const SKILL_NAME = /^(?!.*--)[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?$/;

/**
 * `@Skills('skills')` put on the server class (before its `@McpServer`), unless it has one; the
 * source as it was when it already does.
 */
function withSkillsDecorator(source: string, className: string): string {
  const body = findClassBody(source, className);
  const classAt = body ? source.lastIndexOf('class', body.open) : -1;
  const decoratorAt = source.lastIndexOf('@McpServer(', classAt);
  if (classAt < 0 || decoratorAt < 0) throw new GenerateError(`cannot find the @McpServer decorator of ${className}`);
  // The class's decorators: from the end of the statement before them (an import, a blank line).
  const decoratorsFrom = Math.max(source.lastIndexOf(';', decoratorAt), source.lastIndexOf('\n\n', decoratorAt));
  if (/@Skills\(/.test(source.slice(decoratorsFrom, classAt))) return source;
  const lineStart = source.lastIndexOf('\n', decoratorAt) + 1;
  const indent = source.slice(lineStart, decoratorAt);
  const decorated = `${source.slice(0, lineStart)}${indent}@Skills(${tsLiteral(SKILLS_FOLDER)})\n${source.slice(lineStart)}`;
  return ensureNamedImports(decorated, '@armature/core', ['Skills']);
}

const BUNDLE_COPY = 'COPY --from=build /app/dist/bundle ./dist/bundle';
const SKILLS_COPY = `COPY --from=build /app/${SKILLS_FOLDER} ./${SKILLS_FOLDER}`;

/**
 * The project's Dockerfile with the skills folder copied into the runtime stage beside the bundle
 * (the server reads it at start-up); undefined when there is no Dockerfile or it copies it already.
 */
function dockerfileWithSkills(project: Project): string | undefined {
  const path = join(project.root, 'Dockerfile');
  if (!existsSync(path)) return undefined;
  const dockerfile = readFileSync(path, 'utf8');
  if (dockerfile.includes(SKILLS_COPY) || !dockerfile.includes(BUNDLE_COPY)) return undefined;
  return dockerfile.replace(BUNDLE_COPY, `${BUNDLE_COPY}\n${SKILLS_COPY}`);
}

/** `armature generate skill <name>`: `skills/<name>/SKILL.md`, `@Skills('skills')` on a server, and a test. */
export async function planSkill(project: Project, name: string, options: GenerateOptions, ui: Ui): Promise<GeneratePlan> {
  if (isNestProject(project)) {
    throw new GenerateError(
      "in a Nest project, armature generate skill does not edit the providers.\nFix: write skills/<name>/SKILL.md yourself and put @Skills('skills') on the @McpServer provider.",
    );
  }
  const skillName = kebabCase(name);
  if (!SKILL_NAME.test(skillName)) {
    throw new GenerateError(`"${name}" cannot name a skill: 1-64 lowercase letters, digits and hyphens, e.g. pdf-processing`);
  }
  const skillFile = `${SKILLS_FOLDER}/${skillName}/SKILL.md`;
  if (existsSync(join(project.root, skillFile)) && !options.force) {
    throw new GenerateError(`${skillFile} already exists. Pick another name, or --force to write it again.`);
  }
  const server = await resolveServer(project, options.server, ui, 'skill');
  const serverSource = withSkillsDecorator(server.source, server.className);
  const description = `${sentenceCase(name)}. TODO: say what the skill does and when an agent should use it.`;
  const skillMd = `---
name: ${skillName}
description: ${JSON.stringify(description)}
---

# ${sentenceCase(name)}

TODO: the instructions an agent follows once it loads this skill. Put scripts, references and
templates next to this file and point to them by relative path.
`;
  const testFile = testPath(server.dir, `${skillName}.skill.test.ts`);
  const dockerfile = dockerfileWithSkills(project);
  const test = `${importLine(['createTestingApp', 'listSkills', 'verifySkill'], '@armature/testing')}
import { describe, expect, it } from 'vitest';
${importLine([server.className], importPath(testFile, server.file))}

// The skills are read from ./${SKILLS_FOLDER} under the working directory (the project's root when
// tests run): every file is checked against the digest and size its entry publishes.
describe('skill ${skillName}', () => {
  it('is listed, and each of its files matches its entry', async () => {
    const t = await createTestingApp({ servers: [${server.className}] }).compile();
    try {
      const skill = (await listSkills(t.client)).find((s) => s.uri === 'skill://${skillName}/SKILL.md');
      expect(skill?.frontmatter.name).toBe(${tsLiteral(skillName)});
      expect(skill && (await verifySkill(t.client, skill))).toEqual([]);
    } finally {
      await t.close();
    }
  });
});
`;
  return {
    files: [
      { path: skillFile, action: existsSync(join(project.root, skillFile)) ? 'update' : 'create', content: skillMd },
      ...(serverSource === server.source
        ? []
        : [
            {
              path: server.file,
              action: 'update' as const,
              content: serverSource,
              note: `adds @Skills('${SKILLS_FOLDER}') to ${server.className}`,
            },
          ]),
      { path: testFile, action: 'create', content: test },
      ...(dockerfile
        ? [{ path: 'Dockerfile', action: 'update' as const, content: dockerfile, note: `copies ${SKILLS_FOLDER}/ into the runtime image` }]
        : []),
    ],
    summary: `skill "${skillName}" served by ${server.className}`,
    next: `Write the instructions in ${skillFile}, and describe when to use the skill in its frontmatter.`,
  };
}

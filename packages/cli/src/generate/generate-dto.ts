import { kebabCase, pascalCase, sentenceCase } from '../util/names.js';
import { importPath, type Project } from '../util/project.js';
import { tsLiteral } from '../util/ts-literal.js';
import type { Ui } from '../util/ui.js';
import { boundaryAccepts, formatFields, invalidCases, missingCase, validArguments } from './field-spec.js';
import { fieldsOr, GenerateError, type GenerateOptions, type GeneratePlan, resolveServer, srcPath, testPath } from './generate-context.js';
import { resolveNestedDtos } from './read-dto-fields.js';
import { importLine, renderCaseRows, renderDto } from './render.js';

const DEFAULT_FIELDS = 'name:string:1..100';

/** `armature generate dto <name>`: a DTO class (in a server's dto/ folder with --server) and its test. */
export async function planDto(project: Project, name: string, options: GenerateOptions, ui: Ui): Promise<GeneratePlan> {
  const className = pascalCase(name);
  if (!/^[A-Z]/.test(className)) throw new GenerateError(`"${name}" cannot name a class: start it with a letter`);
  const spec = fieldsOr(options.fields, DEFAULT_FIELDS);
  const dir = options.server ? `${(await resolveServer(project, options.server, ui, 'DTO')).dir}/dto` : 'dto';
  const file = srcPath(dir, `${kebabCase(name)}.dto.ts`);
  const testFile = testPath(dir, `${kebabCase(name)}.dto.test.ts`);
  const { fields, imports: nested } = resolveNestedDtos(project, spec, file);
  const accepts = boundaryAccepts(fields);
  const acceptRows = [{ what: 'every field at a typical value', args: validArguments(fields), lines: [] }, ...accepts];

  const missing = missingCase(fields);
  const missingBlock = missing
    ? `
  it('rejects ${missing.what}', async () => {
    const issues = await dtoIssues(${className}, ${tsLiteral(missing.args)});
    expect(issues.length).toBeGreaterThan(0);
    for (const line of issues) expect(line).toMatch(/^${missing.field}: /);
  });
`
    : '';
  const test = `import { buildDto, ${missing ? 'dtoIssues, ' : ''}expectDtoRejects } from '@armature/testing';
import { describe, expect, it } from 'vitest';
${importLine([className], importPath(testFile, file))}

// The cases come from the constraints of ${className},
//   ${formatFields(fields)}
// each limit exactly, one step past it, a missing required field and an unknown field. The lines
// are what a tool taking ${className} answers. Change them with the DTO.
describe('${className}', () => {
  it.each([
${renderCaseRows(acceptRows, false)}
  ])('accepts %s', async (_what, args) => {
    await expect(buildDto(${className}, args)).resolves.toBeInstanceOf(${className});
  });

  it.each([
${renderCaseRows(invalidCases(fields), true)}
  ])('rejects %s', async (_what, args, lines) => {
    await expectDtoRejects(${className}, args, lines);
  });
${missingBlock}});
`;
  return {
    files: [
      { path: file, action: 'create', content: renderDto(className, `${sentenceCase(name)}.`, fields, nested) },
      { path: testFile, action: 'create', content: test },
    ],
    summary: `DTO ${className}`,
    next: `Use it as a tool's input: \`async myTool(input: ${className}, ctx: Context)\` (import it as a value, not with \`import type\`).`,
  };
}

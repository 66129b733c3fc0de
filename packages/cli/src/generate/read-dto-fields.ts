import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript6';
import { importPath, listTypeScriptFiles, type Project } from '../util/project.js';
import type { FieldSpec } from './field-spec.js';
import { GenerateError } from './generate-context.js';

interface DtoSource {
  readonly file: string;
  readonly node: ts.ClassDeclaration;
  readonly source: ts.SourceFile;
}

function findDtoClass(project: Project, className: string): DtoSource | undefined {
  for (const file of listTypeScriptFiles(project.root)) {
    const text = readFileSync(join(project.root, file), 'utf8');
    if (!new RegExp(`\\bclass\\s+${className}\\b`).test(text)) continue;
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const node = source.statements.find((s): s is ts.ClassDeclaration => ts.isClassDeclaration(s) && s.name?.text === className);
    if (node) return { file, node, source };
  }
  return undefined;
}

const literal = (node: ts.Expression | undefined): unknown => {
  if (!node) return undefined;
  if (ts.isNumericLiteral(node)) return Number(node.text);
  if (ts.isPrefixUnaryExpression(node) && node.operator === ts.SyntaxKind.MinusToken && ts.isNumericLiteral(node.operand))
    return -Number(node.operand.text);
  if (ts.isStringLiteral(node)) return node.text;
  if (ts.isArrayLiteralExpression(node)) return node.elements.map((e) => literal(e));
  if (ts.isObjectLiteralExpression(node))
    return Object.fromEntries(
      node.properties.filter(ts.isPropertyAssignment).map((p) => [p.name.getText(), literal(p.initializer) ?? true]),
    );
  if (node.kind === ts.SyntaxKind.TrueKeyword) return true;
  if (ts.isArrowFunction(node) && ts.isIdentifier(node.body)) return node.body.text;
  return undefined;
};

/**
 * The fields of a DTO class in the sources, read back from its decorators (nothing is run): what
 * a nested DTO needs for the samples and cases of the tests generated around it.
 */
function fieldsOf(project: Project, dto: DtoSource, depth: number): FieldSpec[] {
  const fields: FieldSpec[] = [];
  for (const member of dto.node.members) {
    if (!ts.isPropertyDeclaration(member) || !ts.isIdentifier(member.name)) continue;
    const calls = new Map<string, unknown[]>();
    for (const decorator of ts.getDecorators(member) ?? []) {
      const call = decorator.expression;
      if (ts.isCallExpression(call) && ts.isIdentifier(call.expression))
        calls.set(
          call.expression.text,
          call.arguments.map((a) => literal(a)),
        );
    }
    if (calls.size === 0) continue;
    const arg = (name: string, index = 0) => calls.get(name)?.[index];
    const num = (value: unknown) => (typeof value === 'number' ? value : undefined);
    const base = {
      name: member.name.text,
      optional: calls.has('IsOptional') || member.questionToken !== undefined,
      description: member.name.text,
    };
    const each = (arg('IsString') as { each?: boolean } | undefined)?.each === true;
    if (calls.has('ValidateNested') && typeof arg('Type') === 'string') {
      const className = arg('Type') as string;
      const list = (arg('ValidateNested') as { each?: boolean } | undefined)?.each === true;
      fields.push({ ...base, type: 'dto', dto: { className, list, fields: depth < 4 ? nestedFields(project, className, depth + 1) : [] } });
    } else if (calls.has('IsDate')) fields.push({ ...base, type: 'date' });
    else if (calls.has('IsIn')) fields.push({ ...base, type: 'enum', values: (arg('IsIn') as unknown[]).map(String) });
    else if (calls.has('IsBoolean')) fields.push({ ...base, type: 'boolean' });
    else if (calls.has('IsInt') || calls.has('IsNumber'))
      fields.push({ ...base, type: calls.has('IsInt') ? 'int' : 'number', min: num(arg('Min')), max: num(arg('Max')) });
    else if (each) fields.push({ ...base, type: 'string[]', min: num(arg('ArrayMinSize')), max: num(arg('ArrayMaxSize')) });
    else
      fields.push({
        ...base,
        type: 'string',
        min: num(arg('Length')) ?? num(arg('MinLength')),
        max: num(arg('Length', 1)) ?? num(arg('MaxLength')),
      });
  }
  return fields;
}

function nestedFields(project: Project, className: string, depth: number): FieldSpec[] {
  const dto = findDtoClass(project, className);
  return dto ? fieldsOf(project, dto, depth) : [];
}

/**
 * Fills in each nested DTO field (`address:Address`) with the fields of that class, found in the
 * sources, and returns the import specifier of each class as seen from `forFile`.
 */
export function resolveNestedDtos(
  project: Project,
  fields: readonly FieldSpec[],
  forFile: string,
): { fields: FieldSpec[]; imports: Map<string, string> } {
  const imports = new Map<string, string>();
  const resolved = fields.map((field) => {
    if (field.type !== 'dto' || !field.dto) return field;
    const dto = findDtoClass(project, field.dto.className);
    if (!dto) {
      throw new GenerateError(
        `no class ${field.dto.className} was found under src/ for the field "${field.name}".\n` +
          `Fix: armature generate dto ${field.dto.className} --fields "..." first, or use another type.`,
      );
    }
    imports.set(field.dto.className, importPath(forFile, dto.file));
    return { ...field, dto: { ...field.dto, fields: fieldsOf(project, dto, 1) } };
  });
  return { fields: resolved, imports };
}

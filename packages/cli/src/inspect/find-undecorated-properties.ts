import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
// TypeScript 7 has no JavaScript API: the 6.x compiler (aliased) only parses the sources here.
import ts from 'typescript6';
import { toPosix } from '../util/project.js';
import type { Finding } from './lint-catalogue.js';

/** Decorators that make a class a DTO: class-validator's and class-transformer's, and `@Field`. */
const DTO_MODULES = new Set(['class-validator', 'class-transformer', '@armature/core']);

function sourceFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(path);
    return /\.(c|m)?tsx?$/.test(entry.name) && !/\.d\.(c|m)?ts$/.test(entry.name) ? [path] : [];
  });
}

/**
 * Names bound by `import { A, B as C } from 'class-validator'` (and the other DTO modules), and
 * among them those of `@Field`, which describes a property but does not validate it.
 */
function dtoDecoratorNames(file: ts.SourceFile): { names: Set<string>; fields: Set<string> } {
  const names = new Set<string>();
  const fields = new Set<string>();
  for (const statement of file.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
    if (!DTO_MODULES.has(statement.moduleSpecifier.text)) continue;
    const bindings = statement.importClause?.namedBindings;
    if (bindings && ts.isNamedImports(bindings)) {
      for (const element of bindings.elements) {
        const isField = statement.moduleSpecifier.text === '@armature/core' && (element.propertyName ?? element.name).text === 'Field';
        if (statement.moduleSpecifier.text !== '@armature/core' || isField) names.add(element.name.text);
        if (isField) fields.add(element.name.text);
      }
    }
  }
  return { names, fields };
}

function decoratorName(decorator: ts.Decorator): string | undefined {
  const call = decorator.expression;
  const callee = ts.isCallExpression(call) ? call.expression : call;
  return ts.isIdentifier(callee) ? callee.text : undefined;
}

/** The validator a property needs, from its type annotation and initial value. */
function suggestion(property: ts.PropertyDeclaration, file: ts.SourceFile): string {
  const optional = property.questionToken || property.initializer ? '@IsOptional() ' : '';
  const type = property.type?.getText(file).replace(/\s/g, '') ?? '';
  const init = property.initializer;
  if (type === 'string' || (init && ts.isStringLiteral(init))) return `${optional}@IsString()`;
  if (type === 'boolean' || (init && (init.kind === ts.SyntaxKind.TrueKeyword || init.kind === ts.SyntaxKind.FalseKeyword)))
    return `${optional}@IsBoolean()`;
  if (init && ts.isNumericLiteral(init)) return `${optional}${Number.isInteger(Number(init.text)) ? '@IsInt()' : '@IsNumber()'}`;
  if (type === 'number') return `${optional}@IsNumber()`;
  if (type === 'Date') return `${optional}@IsDate() @Type(() => Date)`;
  if (type === 'string[]') return `${optional}@IsString({ each: true })`;
  if (/^[A-Z]\w*\[\]$/.test(type)) return `${optional}@ValidateNested({ each: true }) @Type(() => ${type.slice(0, -2)})`;
  if (/^[A-Z]\w*$/.test(type)) return `${optional}@ValidateNested() @Type(() => ${type})`;
  return `${optional}@IsString() (or the validator for its type; @Allow() for any value)`;
}

/**
 * DTO properties with no decorator at all, found by parsing the sources (nothing is run): such a
 * property is missing from the advertised schema, and a client that sends it is refused with
 * "unknown property", with nothing at start-up to say why.
 */
export function findUndecoratedProperties(root: string, folder = 'src'): Finding[] {
  const findings: Finding[] = [];
  for (const path of sourceFiles(join(root, folder))) {
    const file = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
    const { names: dtoDecorators, fields } = dtoDecoratorNames(file);
    if (dtoDecorators.size === 0) continue;
    const visit = (node: ts.Node): void => {
      if (ts.isClassDeclaration(node) && node.name) {
        const properties = node.members.filter(
          (member): member is ts.PropertyDeclaration =>
            ts.isPropertyDeclaration(member) && !member.modifiers?.some((m) => m.kind === ts.SyntaxKind.StaticKeyword),
        );
        const decorated = (p: ts.PropertyDeclaration) => ts.getDecorators(p) ?? [];
        const isDto = properties.some((p) => decorated(p).some((d) => dtoDecorators.has(decoratorName(d) ?? '')));
        for (const property of isDto ? properties : []) {
          if (!ts.isIdentifier(property.name)) continue;
          const names = decorated(property).map((d) => decoratorName(d) ?? '');
          const { line } = file.getLineAndCharacterOfPosition(property.getStart(file));
          if (names.length > 0 && names.every((name) => fields.has(name))) {
            findings.push({
              rule: 'field-without-validator',
              where: `${node.name.text}.${property.name.text} (${toPosix(relative(root, path))}:${line + 1})`,
              message: `@Field describes it but no validator checks it, so start-up refuses it (ARM206). Fix: add ${suggestion(property, file)} (or @Allow() for any value)`,
            });
            continue;
          }
          if (names.length > 0) continue;
          findings.push({
            rule: 'undecorated-property',
            where: `${node.name.text}.${property.name.text} (${toPosix(relative(root, path))}:${line + 1})`,
            message: `no decorator, so it is not in the schema and a client sending it is refused as an unknown property. Fix: ${suggestion(property, file)}`,
          });
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
  }
  return findings;
}

/** The words of a name written in any case: `listPets`, `list-pets`, `X-Request-Id` -> `list`, `pets`... */
function words(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter((word) => word !== '')
    .map((word) => word.toLowerCase());
}

export const kebabCase = (name: string): string => words(name).join('-');

export function pascalCase(name: string): string {
  const pascal = words(name)
    .map((word) => word[0]?.toUpperCase() + word.slice(1))
    .join('');
  return /^[0-9]/.test(pascal) ? `N${pascal}` : pascal;
}

export function camelCase(name: string): string {
  const pascal = pascalCase(name);
  return pascal.length === 0 ? pascal : pascal[0]?.toLowerCase() + pascal.slice(1);
}

/** A tool name as MCP allows it: 1-128 of `[A-Za-z0-9_.-]`. */
export function toolName(name: string): string {
  return name.replace(/[^A-Za-z0-9_.-]+/g, '_').slice(0, 128);
}

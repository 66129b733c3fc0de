import { split } from 'change-case';

/**
 * The words of a name written in any case: `getForecast`, `get-forecast`, `Get Forecast` -> `get`,
 * `forecast`. Case boundaries are change-case's; only ASCII letters and digits make words (what
 * file names and identifiers of generated code take), anything else separates them.
 */
export function words(name: string): string[] {
  return split(name.replace(/[^A-Za-z0-9]+/g, ' ')).map((word) => word.toLowerCase());
}

export const kebabCase = (name: string): string => words(name).join('-');
export const snakeCase = (name: string): string => words(name).join('_');
export const pascalCase = (name: string): string =>
  words(name)
    .map((word) => word[0]?.toUpperCase() + word.slice(1))
    .join('');
export const camelCase = (name: string): string => {
  const pascal = pascalCase(name);
  return pascal.length === 0 ? pascal : pascal[0]?.toLowerCase() + pascal.slice(1);
};

/** `Get forecast` style: the first word capitalised, for titles and placeholder descriptions. */
export function sentenceCase(name: string): string {
  const text = words(name).join(' ');
  return text.length === 0 ? text : text[0]?.toUpperCase() + text.slice(1);
}

/** The name of a class ending in `Server`: `weather` -> `WeatherServer`, `WeatherServer` -> `WeatherServer`. */
export function serverClassName(name: string): string {
  const pascal = pascalCase(name);
  return pascal.endsWith('Server') ? pascal : `${pascal}Server`;
}

/** The kebab base of a server name: `WeatherServer` / `weather-server` / `weather` -> `weather`. */
export function serverBaseName(name: string): string {
  const list = words(name);
  if (list.length > 1 && list[list.length - 1] === 'server') list.pop();
  return list.join('-');
}

/**
 * The server's base name from a project name: `@acme/weather-mcp` -> `weather`, `my-server` -> `my`,
 * `server` -> `server`.
 */
export function serverBaseFromProject(project: string): string {
  const unscoped = project.replace(/^@[^/]+\//, '');
  const list = words(unscoped);
  while (list.length > 1 && ['server', 'mcp'].includes(list[list.length - 1] as string)) list.pop();
  return list.join('-') || 'app';
}

/**
 * A valid npm package name close to `name` (`My Server` -> `my-server`), or undefined when none
 * can be made from it.
 */
export function suggestPackageName(name: string): string | undefined {
  const scope = /^@([^/]+)\/(.+)$/.exec(name.trim());
  const part = (text: string) =>
    text
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase()
      .replace(/[^a-z0-9-._~]+/g, '-')
      .replace(/^[-._]+|-+$/g, '')
      .slice(0, 200);
  const suggestion = scope ? `@${part(scope[1] as string)}/${part(scope[2] as string)}` : part(name);
  return suggestion !== name && checkPackageName(suggestion) === undefined ? suggestion : undefined;
}

/** A valid npm package name, or why not (the rules npm enforces for new packages). */
export function checkPackageName(name: string): string | undefined {
  if (name.length === 0) return 'the name is empty';
  if (name.length > 214) return 'the name is longer than 214 characters';
  if (name !== name.toLowerCase()) return 'the name has capital letters';
  if (!/^(?:@[a-z0-9-~][a-z0-9-._~]*\/)?[a-z0-9-~][a-z0-9-._~]*$/.test(name)) {
    return 'the name may use only lowercase letters, digits, "-", ".", "_" and "~" (and one @scope/)';
  }
  return undefined;
}

import { split } from 'change-case';

/**
 * The words of a name written in any case: `listPets`, `list-pets`, `X-Request-Id` -> `list`,
 * `pets`... Case boundaries are change-case's; only ASCII letters and digits make words (what
 * identifiers of generated code take), anything else separates them.
 */
function words(name: string): string[] {
  return split(name.replace(/[^A-Za-z0-9]+/g, ' ')).map((word) => word.toLowerCase());
}

export const kebabCase = (name: string): string => words(name).join('-');

/** `photoUrls` -> `Photo urls`. */
export function sentenceCase(name: string): string {
  const text = words(name).join(' ');
  return text.length === 0 ? 'The value' : `${text[0]?.toUpperCase()}${text.slice(1)}`;
}

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

/** Words of an API title that name no API in particular. */
const NOISE = new Set([
  'a',
  'an',
  'the',
  'swagger',
  'openapi',
  'open',
  'api',
  'apis',
  'rest',
  'restful',
  'http',
  'https',
  'json',
  'web',
  'service',
  'services',
  'server',
  'spec',
  'specification',
  'definition',
  'documentation',
  'docs',
  'sample',
  'example',
]);

/** Most words a server name inferred from a title keeps. */
const NAME_WORDS = 2;

/** The words of a title that name the API: no noise words, no versions (`3.0`, `v2`). */
function namingWords(title: string): string[] {
  return title
    .split(/\s+/)
    .filter((word) => !/^v?\d+([._]\d+)*$/i.test(word))
    .flatMap(words)
    .filter((word) => !NOISE.has(word) && !/^v?\d+$/.test(word));
}

/**
 * A short server name for a document, in kebab case: the naming words of its title (the part
 * before a ` - `, `:`, `|` or `(` that still has some), at most two; else the host of its first
 * server (`api.stripe.com` -> `stripe`); else `api`. "Swagger Petstore - OpenAPI 3.0" -> `petstore`.
 */
export function shortServerName(title: string, serverUrl?: string): string {
  for (const part of title.split(/\s[-–—|]\s|[:|(]/)) {
    const found = namingWords(part);
    if (found.length > 0) return found.slice(0, NAME_WORDS).join('-');
  }
  const host = serverUrl && URL.canParse(serverUrl) ? new URL(serverUrl).hostname : '';
  const label = host
    .split('.')
    .slice(0, -1)
    .find((part) => !['api', 'www', 'rest', 'gateway'].includes(part) && !/^\d+$/.test(part));
  return label ? kebabCase(label) : 'api';
}

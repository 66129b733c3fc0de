#!/usr/bin/env node
// Another library's internals are reached only through packages/core/src/seams/, whose files check
// at start-up that what they use is there and fall back to the library's public path when not.
// This fails on any other file of packages/core/src that reaches in: an underscore member (the SDK's
// private and protected members, Node's `_sent100`), a deep import of class-transformer or
// class-validator that loads code, or typedi's `Container.handlers`. It also fails on an SDK request
// context cast into being (`as ServerContext`): the only one Armature makes is complete and typed, in
// runtime/request-source.ts (`serverContextOf`). And it fails on an assignment to `onmessage`,
// `onclose`, `connect` or `send` (how another library's object gets patched): those callbacks are
// set in seams/sdk-callbacks.ts only, which keeps the previous handler and checks that the SDK set its own.
// `node .ci/lint-seams.mjs [root]` checks the repository at `root` (default: this one).
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = process.argv[2] ? resolve(process.argv[2]) : fileURLToPath(new URL('..', import.meta.url));
const src = join(root, 'packages/core/src');
const SEAMS = join(src, 'seams');

const RULES = [
  { what: 'a private or protected member', pattern: /(?:\.\s*|\[\s*['"])(_(?!meta\b)[A-Za-z]\w*)/g },
  {
    what: 'a deep import that loads library code',
    pattern: /^\s*import\s+(?!type\b)[^;]*?from\s+['"]((?:class-transformer|class-validator|typedi)\/[^'"]+)['"]/gm,
  },
  { what: "typedi's internal handler list", pattern: /\b(handlers)\s*:\s*TypediHandler|\{\s*(handlers)\s*:/g },
];

const PATCH = {
  what: "an assignment to a library object's callback",
  pattern: /([\w$.\][)]+)\s*\.\s*(onmessage|onclose|connect|send)\s*=(?![=>])/g,
};

const HAND_MADE_CONTEXT = { what: 'a hand-made SDK request context', pattern: /as\s+(?:unknown\s+as\s+)?(ServerContext)\b(?!\[)/g };

function* files(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (path !== SEAMS) yield* files(path);
    } else if (entry.name.endsWith('.ts')) yield path;
  }
}

const problems = [];
for (const file of files(src)) {
  const text = readFileSync(file, 'utf8');
  for (const { what, pattern } of RULES) {
    for (const match of text.matchAll(pattern)) {
      const line = text.slice(0, match.index).split('\n').length;
      const name = match.slice(1).find(Boolean);
      problems.push(`${relative(root, file)}:${line}: ${what} (${name}) is reached outside packages/core/src/seams/`);
    }
  }
  for (const match of text.matchAll(PATCH.pattern)) {
    const target = `${match[1]}.${match[2]}`;
    const line = text.slice(0, match.index).split('\n').length;
    problems.push(
      `${relative(root, file)}:${line}: ${PATCH.what} (${target}) is set outside packages/core/src/seams/: use seams/sdk-callbacks.ts`,
    );
  }
  for (const match of text.matchAll(HAND_MADE_CONTEXT.pattern)) {
    const line = text.slice(0, match.index).split('\n').length;
    problems.push(`${relative(root, file)}:${line}: ${HAND_MADE_CONTEXT.what}: build it from a RequestSource with serverContextOf`);
  }
}
if (problems.length > 0) {
  console.error(problems.join('\n'));
  console.error(`lint:seams: ${problems.length} problem(s). Move the access into a seam file that checks it at start-up.`);
  process.exit(1);
}
console.log('lint:seams: only packages/core/src/seams/ reaches into other libraries');

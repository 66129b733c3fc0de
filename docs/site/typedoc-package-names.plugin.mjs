// TypeDoc names an entry point's module after its path (`core/src`); readers import it by its package
// name, so each module takes the `name` of the package.json nearest its entry file.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Converter } from 'typedoc';

function packageNameOf(file) {
  for (let dir = dirname(file); dir !== dirname(dir); dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) return JSON.parse(readFileSync(manifest, 'utf8')).name;
  }
  throw new Error(`typedoc-package-names: no package.json above ${file}`);
}

/** @param {import('typedoc').Application} app */
export function load(app) {
  app.converter.on(Converter.EVENT_RESOLVE_BEGIN, (context) => {
    for (const module of context.project.children ?? []) {
      const declaration = context.getSymbolFromReflection(module)?.declarations?.[0];
      if (declaration) module.name = packageNameOf(declaration.getSourceFile().fileName);
    }
  });
}

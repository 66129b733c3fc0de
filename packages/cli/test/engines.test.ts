import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { CLI_ROOT } from './support/packed-project.js';

// Each published package declares the Node versions it runs on, and every dependency it installs
// (or asks of the user, as a peer) accepts all of them: else npm warns EBADENGINE on an install
// the package calls supported. @armature/openapi is checked with its own package.
const PACKAGES = ['core', 'testing', 'redis', 'nestjs', 'cli', 'create-armature'];

type Manifest = {
  name: string;
  engines?: { node?: string };
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
};

describe('engines', () => {
  for (const name of PACKAGES) {
    it(`@armature/${name}: its dependencies accept every Node it declares`, () => {
      const folder = join(CLI_ROOT, '..', name);
      const manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as Manifest;
      const declared = manifest.engines?.node;
      expect(declared, `${manifest.name} declares engines.node`).toBeDefined();
      const require = createRequire(join(folder, 'package.json'));
      const narrower: string[] = [];
      for (const dependency of Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies })) {
        if (dependency.startsWith('@armature/')) continue;
        let needs: string | undefined;
        try {
          needs = (JSON.parse(readFileSync(require.resolve(`${dependency}/package.json`), 'utf8')) as Manifest).engines?.node;
        } catch {
          continue; // a package that hides its package.json, or an optional peer not installed here
        }
        if (needs && !semver.subset(declared as string, needs)) narrower.push(`${dependency} needs ${needs}`);
      }
      expect(narrower, `${manifest.name} declares ${declared}`).toEqual([]);
    });
  }
});

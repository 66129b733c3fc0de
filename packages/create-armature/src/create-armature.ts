#!/usr/bin/env node
// `npm create armature@latest my-server` runs this bin: the scaffolding itself lives in
// @armature/cli (`armature new`), so both commands write the same project.
import { runCreate } from '@armature/cli';

process.exitCode = await runCreate(process.argv.slice(2));

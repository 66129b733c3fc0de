import { fileURLToPath } from 'node:url';
import { type CreateMcpAppOptions, createMcpApp, type McpApp, skills } from '@armature/core';
import { ClientFeatureTools } from './client-features.server.js';
import { COMPOSED } from './composed.server.js';
import { DiagnosticTools, listChangeTools } from './diagnostics.server.js';
import { InputRequiredTools } from './input-required.server.js';
import { ConformancePrompts } from './prompts.server.js';
import { ConformanceResources, WATCHED_INTERVAL_MS, watchedResource } from './resources.server.js';
import { ConformanceTasks } from './tasks.server.js';
import { ConformanceTools } from './tools.server.js';

export interface ConformanceAppOptions {
  /** Delay before the `test_dynamic_*` tool, resource and prompt are enabled. Default 2000 ms; `false` never. */
  dynamicDelayMs?: number | false;
  /** Period of `test://watched-resource` updates. Default 3000 ms; `false` never. */
  watchedIntervalMs?: number | false;
  /** Where sessions and events live (default in memory), and the key shared by every instance. */
  scaleOut?: Pick<CreateMcpAppOptions, 'state' | 'requestStateKey'>;
  /** Also mount the `extra` part (src/composed.server.ts) and hide its `internal`-tagged tool. */
  composed?: boolean;
}

export interface ConformanceApp {
  readonly app: McpApp;
  /** Stops the timers and every listener. */
  close(): Promise<void>;
}

export const SERVER_CLASSES = [
  ConformanceTools,
  ClientFeatureTools,
  InputRequiredTools,
  DiagnosticTools,
  ConformanceResources,
  ConformancePrompts,
  ConformanceTasks,
];

/** The skills the server serves (SEP-2640): the folder next to src/ and dist/. */
export const SKILLS_DIR = fileURLToPath(new URL('../skills', import.meta.url));

const DYNAMIC = { tool: 'test_dynamic_tool', resource: 'test://dynamic-resource', prompt: 'test_dynamic_prompt' };

/**
 * The conformance server: the suite's inventory, plus the run-time behaviour of its reference server
 * (the watched resource changes every 3 s and is announced to subscribers; the dynamic tool, resource
 * and prompt appear 2 s after start with list_changed notifications).
 */
export function createConformanceApp(options: ConformanceAppOptions = {}): ConformanceApp {
  // The list-change hooks edit the app that serves them.
  const classes = [...SERVER_CLASSES, listChangeTools(() => app, DYNAMIC)];
  const extensions = [skills({ dirs: [SKILLS_DIR] })];
  const app: McpApp = options.composed
    ? createMcpApp([...classes, ...COMPOSED.parts], { ...options.scaleOut, hiddenTags: COMPOSED.hiddenTags, extensions })
    : createMcpApp(classes, { ...options.scaleOut, extensions });
  const timers: NodeJS.Timeout[] = [];

  app.tools.disable(DYNAMIC.tool);
  app.resources.disable(DYNAMIC.resource);
  app.prompts.disable(DYNAMIC.prompt);
  const dynamicDelay = options.dynamicDelayMs ?? 2000;
  if (dynamicDelay !== false) {
    timers.push(
      setTimeout(() => {
        app.tools.enable(DYNAMIC.tool);
        app.resources.enable(DYNAMIC.resource);
        app.prompts.enable(DYNAMIC.prompt);
      }, dynamicDelay),
    );
  }

  const watchedEvery = options.watchedIntervalMs ?? WATCHED_INTERVAL_MS;
  if (watchedEvery !== false) {
    timers.push(
      setInterval(() => {
        watchedResource.bump();
        app.notifyResourceUpdated('test://watched-resource');
      }, watchedEvery),
    );
  }
  // Timers never keep the process alive: the listener (HTTP) or stdin (stdio) does.
  for (const timer of timers) timer.unref();

  return {
    app,
    async close() {
      for (const timer of timers) clearTimeout(timer);
      await app.close();
    },
  };
}

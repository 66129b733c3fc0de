import { type CreateMcpAppOptions, createMcpApp, type McpApp } from '@armature/core';
import { ShopServer } from './shop.server.js';
import { ToolboxServer } from './toolbox.server.js';

/** Every server class the app serves, in the order their tools are listed. */
export const servers = [ToolboxServer, ShopServer];

/**
 * The example app: both server classes behind one endpoint. `main.ts` serves it; the in-process
 * tests build the same `servers` with `createTestingApp`.
 */
export function createExampleApp(options: CreateMcpAppOptions = {}): McpApp {
  return createMcpApp(servers, options);
}

import { type CreateMcpAppOptions, createMcpApp, type McpApp } from '@armature/core';
import { ShopServer } from './shop.server.js';
import { ToolboxServer } from './toolbox.server.js';

/**
 * The example app: both server classes behind one endpoint. `main.ts` serves it; the tests
 * connect to it in process.
 */
export function createExampleApp(options: CreateMcpAppOptions = {}): McpApp {
  return createMcpApp([ToolboxServer, ShopServer], options);
}

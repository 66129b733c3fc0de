import { McpServer } from '../../src/index.js';
import { EngineTools } from './engine-tools.js';

/** The server of the engine-fronts tests (its own module, so a test can load it with fresh modules). */
@McpServer({ name: 'fronts', version: '1.0.0' })
export class FrontServer extends EngineTools {}

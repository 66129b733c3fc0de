import { Complete, Field, McpServer, Resource, ResourceTemplate } from '@armature/core';
import { IsString } from 'class-validator';
import { RED_PIXEL_PNG } from './fixtures.js';

class TemplateParams {
  @Field('Any id; it is echoed in the JSON contents')
  @Complete((value) => ['123', '456', '789'].filter((id) => id.startsWith(value)))
  @IsString()
  id!: string;
}

/** How often `test://watched-resource` changes (the reference server uses 3 s). */
export const WATCHED_INTERVAL_MS = 3000;

/** State of `test://watched-resource`; the app's timer bumps it, then announces the update. */
export const watchedResource = {
  version: 0,
  changedAt: new Date(),
  bump(): void {
    this.version++;
    this.changedAt = new Date();
  },
  get text(): string {
    return `Watched resource content, version ${this.version} (${this.changedAt.toISOString()})`;
  },
};

/** The resources of the conformance suite. */
@McpServer({ name: 'armature-conformance-server', version: '0.1.0' })
export class ConformanceResources {
  @Resource({
    uri: 'test://static-text',
    name: 'static-text',
    title: 'Static Text Resource',
    description: 'A static text resource for testing',
    mimeType: 'text/plain',
  })
  staticText() {
    return 'This is the content of the static text resource.';
  }

  @Resource({
    uri: 'test://static-binary',
    name: 'static-binary',
    title: 'Static Binary Resource',
    description: 'A static binary resource (a 1x1 PNG) for testing',
    mimeType: 'image/png',
  })
  staticBinary() {
    return Buffer.from(RED_PIXEL_PNG, 'base64');
  }

  @Resource({
    uri: 'test://watched-resource',
    name: 'watched-resource',
    title: 'Watched Resource',
    description: `A resource that changes every ${WATCHED_INTERVAL_MS / 1000} s; subscribers get notifications/resources/updated`,
    mimeType: 'text/plain',
  })
  watched() {
    return watchedResource.text;
  }

  @Resource({
    uri: 'test://dynamic-resource',
    name: 'dynamic-resource',
    title: 'Dynamic Resource',
    description: 'Registered disabled; enabled 2 s after start (resources/list_changed)',
    mimeType: 'text/plain',
  })
  dynamic() {
    return 'This is a dynamically enabled resource.';
  }

  @ResourceTemplate({
    uriTemplate: 'test://template/{id}/data',
    name: 'template',
    title: 'Resource Template',
    description: 'A resource template with parameter substitution',
    mimeType: 'application/json',
  })
  template(params: TemplateParams) {
    return JSON.stringify({ id: params.id, templateTest: true, data: `Data for ID: ${params.id}` });
  }
}

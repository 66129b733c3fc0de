import { Complete, embeddedResource, Field, image, McpServer, Prompt, text } from '@armature/core';
import { IsString } from 'class-validator';
import { RED_PIXEL_PNG } from './fixtures.js';

const SUGGESTIONS = ['paris', 'park', 'party', 'test', 'testing'];

class PromptWithArguments {
  @Field('First test argument')
  @Complete((value) => SUGGESTIONS.filter((s) => s.startsWith(value.toLowerCase())))
  @IsString()
  arg1!: string;

  @Field('Second test argument')
  @IsString()
  arg2!: string;
}

class PromptWithResource {
  @Field('URI of the resource to embed')
  @IsString()
  resourceUri!: string;
}

/** The prompts of the conformance suite. */
@McpServer({ name: 'armature-conformance-server', version: '0.1.0' })
export class ConformancePrompts {
  @Prompt({ name: 'test_simple_prompt', title: 'Simple Test Prompt', description: 'A simple prompt without arguments' })
  simple() {
    return 'This is a simple prompt for testing.';
  }

  @Prompt({ name: 'test_prompt_with_arguments', title: 'Prompt With Arguments', description: 'A prompt with required arguments' })
  withArguments(args: PromptWithArguments) {
    return `Prompt with arguments: arg1='${args.arg1}', arg2='${args.arg2}'`;
  }

  @Prompt({
    name: 'test_prompt_with_embedded_resource',
    title: 'Prompt With Embedded Resource',
    description: 'A prompt that includes an embedded resource',
  })
  withEmbeddedResource(args: PromptWithResource) {
    return [
      { role: 'user', content: embeddedResource(args.resourceUri, 'Embedded resource content for testing.', { mimeType: 'text/plain' }) },
      { role: 'user', content: text('Please process the embedded resource above.') },
    ];
  }

  @Prompt({ name: 'test_prompt_with_image', title: 'Prompt With Image', description: 'A prompt that includes image content' })
  withImage() {
    return [
      { role: 'user', content: image(RED_PIXEL_PNG, 'image/png') },
      { role: 'user', content: text('Please analyze the image above.') },
    ];
  }

  @Prompt({ name: 'test_dynamic_prompt', title: 'Dynamic Prompt', description: 'Registered disabled; enabled 2 s after start' })
  dynamic() {
    return 'This is a dynamically enabled prompt.';
  }
}

import { Field, McpServer, Tool } from '@armature/core';
import { IsIn, IsString, Length } from 'class-validator';

export class GreetInput {
  @Field('Who to greet')
  @IsString()
  @Length(1, 50)
  name!: string;

  @Field('Language of the greeting')
  @IsIn(['en', 'it'])
  language: string = 'en';
}

@McpServer({ name: 'greeter', version: '1.0.0' })
export class GreeterServer {
  @Tool({ description: 'Greet someone by name', annotations: { readOnlyHint: true } })
  greet(input: GreetInput) {
    return input.language === 'it' ? `Ciao, ${input.name}!` : `Hello, ${input.name}!`;
  }
}

import { Field, McpServer, Tool } from '@armature/core';
import { Type } from 'class-transformer';
import { IsIn, IsOptional, IsString, Length, ValidateNested } from 'class-validator';

export class GreetInput {
  @Field('Who to greet')
  @IsString()
  @Length(1, 50)
  name!: string;

  @Field('Language of the greeting')
  @IsIn(['en', 'it'])
  language: string = 'en';
}

export class Person {
  @Field('First name')
  @IsString()
  @Length(1, 50)
  first!: string;

  @Field('Last name')
  @IsOptional()
  @IsString()
  last?: string;
}

export class GreetPersonInput {
  @Field('Who to greet, as an object')
  @ValidateNested()
  @Type(() => Person)
  person!: Person;
}

@McpServer({ name: 'greeter', version: '1.0.0' })
export class GreeterServer {
  @Tool({ description: 'Greet someone by name', annotations: { readOnlyHint: true } })
  greet(input: GreetInput) {
    return input.language === 'it' ? `Ciao, ${input.name}!` : `Hello, ${input.name}!`;
  }

  @Tool({ description: 'Greet a person given by first and last name', annotations: { readOnlyHint: true } })
  greet_person({ person }: GreetPersonInput) {
    return `Hello, ${person.last ? `${person.first} ${person.last}` : person.first}!`;
  }
}

import { Field } from '@armature/core';
import { IsEmail, IsString } from 'class-validator';

export class SamplingInput {
  @Field('The prompt to send to the LLM')
  @IsString()
  prompt!: string;
}

export class ElicitationInput {
  @Field('The message to show the user')
  @IsString()
  message!: string;
}

/** The form `test_elicitation` asks for: the DTO is the schema, and the answer comes back validated. */
export class UserInfo {
  @Field("User's response")
  @IsString()
  username!: string;

  @Field("User's email address")
  @IsEmail()
  email!: string;
}

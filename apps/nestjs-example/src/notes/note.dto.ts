import { IsIn, IsString, MaxLength, MinLength } from 'class-validator';

/** One DTO for both doors: the body of `POST /notes` and the input of the `add_note` tool. */
export class CreateNoteInput {
  @IsString()
  @MinLength(3)
  @MaxLength(80)
  title!: string;

  @IsIn(['low', 'normal', 'high'])
  priority!: 'low' | 'normal' | 'high';
}

export interface Note {
  readonly id: number;
  readonly title: string;
  readonly priority: string;
  /** `mcp` or `http`: which door the note came in through. */
  readonly via: string;
}

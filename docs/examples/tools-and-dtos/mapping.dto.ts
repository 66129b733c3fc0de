import { Field } from '@armature/core';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayNotEmpty,
  ArrayUnique,
  Equals,
  IsAlpha,
  IsAlphanumeric,
  IsArray,
  IsBoolean,
  IsDate,
  IsDateString,
  IsEmail,
  IsEnum,
  IsIn,
  IsInt,
  IsIP,
  IsISO8601,
  IsNegative,
  IsNotEmpty,
  IsNumber,
  IsObject,
  IsOptional,
  IsPositive,
  IsString,
  IsUrl,
  IsUUID,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateNested,
} from 'class-validator';

export enum Size {
  Small = 's',
  Large = 'l',
}

export enum Priority {
  Low,
  High,
}

export class Point {
  @IsNumber() x!: number;
  @IsNumber() y!: number;
}

// One property per line: examples/tools-and-dtos.ts turns each line into a row of the mapping table
// in tools-and-dtos.md, next to the schema Armature really writes for it.
export class MappingDto {
  @IsString() string!: string;
  @IsNumber() number!: number;
  @IsInt() int!: number;
  @IsBoolean() boolean!: boolean;
  @IsObject() object!: object;
  @IsArray() array!: unknown[];
  @IsEnum(Size) size!: Size;
  @IsEnum(Priority) priority!: Priority;
  @IsIn(['a', 'b']) choice!: string;
  @Equals('v1') version!: string;
  @Min(1) min!: number;
  @Max(10) max!: number;
  @IsPositive() positive!: number;
  @IsNegative() negative!: number;
  @MinLength(2) minLength!: string;
  @MaxLength(20) maxLength!: string;
  @Length(2, 20) length!: string;
  @Matches(/^[a-z]+$/) matches!: string;
  @IsNotEmpty() notEmpty!: string;
  @IsEmail() email!: string;
  @IsUrl() url!: string;
  @IsUUID() uuid!: string;
  @IsDate() @Type(() => Date) due!: Date;
  @IsISO8601({ strict: true }) @Matches(/^\d{4}-\d{2}-\d{2}$/) day!: string;
  @IsDateString() dateString!: string;
  @IsISO8601() iso8601!: string;
  @IsAlpha() alpha!: string;
  @IsAlphanumeric() alphanumeric!: string;
  @ArrayMinSize(1) arrayMinSize!: string[];
  @ArrayMaxSize(5) arrayMaxSize!: string[];
  @ArrayNotEmpty() arrayNotEmpty!: string[];
  @ArrayUnique() arrayUnique!: string[];
  @IsString({ each: true }) strings!: string[];
  @IsArray() @Field({ items: 'integer' }) ids!: number[];
  @ValidateNested() @Type(() => Point) point!: Point;
  @IsArray() @ValidateNested({ each: true }) @Type(() => Point) points!: Point[];
  @IsOptional() @IsString() optional?: string;
  @IsInt() withDefault: number = 10;
  @Field({ description: 'Shown to the model', title: 'Note', examples: ['hi'], deprecated: true }) @IsString() note!: string;
  @IsIP() ip!: string;
}

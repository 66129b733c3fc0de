import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';

export class IncidentPayload {
  @IsString()
  incidentId!: string;

  @IsIn(['P1', 'P2', 'P3'])
  severity!: string;

  @IsOptional()
  @IsString()
  @MaxLength(400_000)
  notes?: string;
}

export class IncidentFilter {
  @IsOptional()
  @IsIn(['P1', 'P2', 'P3'])
  severity?: string;
}

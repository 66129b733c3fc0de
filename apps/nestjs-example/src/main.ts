import 'reflect-metadata';
import { ArmatureValidationPipe } from '@armature/nestjs';
import { NestFactory } from '@nestjs/core';
import { AppModule, STDIO } from './app.module.js';

if (STDIO) {
  // stdout carries the protocol: Nest's logger (which writes there) stays off.
  await NestFactory.createApplicationContext(AppModule, { logger: false });
} else {
  const app = await NestFactory.create(AppModule, { logger: ['error', 'warn'] });
  // The DTO the tools take validates REST bodies too, with the very same problem lines.
  app.useGlobalPipes(new ArmatureValidationPipe());
  app.enableShutdownHooks();
  await app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1');
  process.stdout.write(`listening ${await app.getUrl()}\n`);
}

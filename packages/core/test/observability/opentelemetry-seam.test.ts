import * as api from '@opentelemetry/api';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { afterEach, expect, it, vi } from 'vitest';

// seams/opentelemetry.ts tells whether the app registered OpenTelemetry from the API's global
// registration: nothing registered, no API handed out (core then never loads it); once a provider
// is registered (before or after the app started asking), the API the app registered through.
const KEY = Symbol.for('opentelemetry.js.api.1');

afterEach(() => {
  api.trace.disable();
});

it('hands out no API while nothing is registered, and the API once a provider is', async () => {
  delete (globalThis as Record<symbol, unknown>)[KEY];
  vi.resetModules();
  const { otelApi } = await import('../../src/seams/opentelemetry.js');
  expect(otelApi()).toBeUndefined();
  expect(otelApi()).toBeUndefined();

  expect(api.trace.setGlobalTracerProvider(new BasicTracerProvider())).toBe(true);
  expect(otelApi()?.trace).toBe(api.trace);
  // Loaded once, it stays: a provider unregistered later is the API's no-op one, read through it.
  api.trace.disable();
  expect(otelApi()?.trace).toBe(api.trace);
});

it('tells whether a tracer provider is registered from the registration, as the API would hand one out', async () => {
  delete (globalThis as Record<symbol, unknown>)[KEY];
  vi.resetModules();
  const { otelApi, otelRegistered } = await import('../../src/seams/opentelemetry.js');
  expect(otelApi()).toBeUndefined();
  expect(otelRegistered('trace')).toBe(false);
  // A meter provider alone: the API is loaded, and still hands out no tracer.
  expect(api.metrics.setGlobalMeterProvider(new MeterProvider())).toBe(true);
  expect(otelApi()?.trace).toBe(api.trace);
  expect(otelRegistered('trace')).toBe(false);
  expect(api.trace.setGlobalTracerProvider(new BasicTracerProvider())).toBe(true);
  expect(otelRegistered('trace')).toBe(true);
  api.trace.disable();
  expect(otelRegistered('trace')).toBe(false);
  api.metrics.disable();
});

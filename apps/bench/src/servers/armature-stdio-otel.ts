// Armature over stdio with the OpenTelemetry SDK registered (otel-setup.ts):
// `node armature-stdio-otel.js --otel full|traces|metrics|sampled|producer|sampled-producer`.
import { createBenchApp } from './armature-app.js';
import { otelSetupOf, registerOtel } from './otel-setup.js';

const telemetry = registerOtel(otelSetupOf(process.argv));
createBenchApp(0, telemetry ? { telemetry } : {}).listenStdio();

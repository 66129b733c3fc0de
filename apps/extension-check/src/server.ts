import { createEchoApp } from './app.js';

// Serves the echo app over stdio (the test spawns it as a real child process).
createEchoApp().listenStdio();

// The console runs under a Content-Security-Policy without 'unsafe-eval'. zod 4 probes `Function('')`
// when it creates an object schema (to decide whether to compile parsers); the probe's refusal is
// reported as a CSP violation on every page. zod reads this global config, if present, before any
// schema exists: a classic script runs before the console's module scripts.
globalThis.__zod_globalConfig = Object.assign(globalThis.__zod_globalConfig || {}, { jitless: true });

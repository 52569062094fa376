import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_WEB_DIST, loadSettings, SettingsError } from './settings.js';

const problemsOf = (env: Record<string, string>) => {
  try {
    loadSettings(env);
  } catch (error) {
    expect(error).toBeInstanceOf(SettingsError);
    return (error as SettingsError).problems;
  }
  throw new Error('expected a SettingsError');
};

describe('loadSettings', () => {
  it('has defaults for an empty environment', () => {
    const s = loadSettings({});
    expect(s).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      dataDir: resolve('data'),
      databaseUrl: null,
      edition: 'default',
      landingUrl: '',
      publicHost: 'http://127.0.0.1:8080',
      sessionSecret: null,
      sessionTtlHours: 168,
      demo: true,
      demoPassword: 'demo',
      adminPassword: null,
      encryptResponses: false,
      logLevel: 'info',
      webDist: DEFAULT_WEB_DIST,
      trustProxy: false,
      metricsAllow: ['127.0.0.1/8', '::1'],
      metricsToken: null,
    });
    expect(DEFAULT_WEB_DIST).toMatch(/packages\/web\/dist$/);
  });

  it('treats empty values as unset, and reads every variable', () => {
    const s = loadSettings({
      PORT: '9000',
      HOST: '0.0.0.0',
      DATA_DIR: '/tmp/adplane-x',
      DATABASE_URL: 'postgresql://u:p@db:5432/adplane',
      ADPLANE_EDITION: 'CTVMediaV2V',
      ADPLANE_LANDING_URL: 'https://example.com/',
      ADPLANE_HOST: 'https://ads.example.com/',
      ADPLANE_SESSION_SECRET: 's'.repeat(32),
      ADPLANE_SESSION_TTL_HOURS: '12',
      ADPLANE_DEMO: '0',
      ADPLANE_ADMIN_PASSWORD: 'long-enough',
      ADPLANE_ENCRYPT_RESPONSES: '1',
      LOG_LEVEL: 'silent',
      ADPLANE_TRUST_PROXY: '10.0.0.0/8',
      ADPLANE_METRICS_ALLOW: '10.1.0.0/16, 192.0.2.7,fd00::/8',
      ADPLANE_METRICS_TOKEN: 't'.repeat(24),
    });
    expect(s).toMatchObject({
      port: 9000,
      host: '0.0.0.0',
      dataDir: '/tmp/adplane-x',
      databaseUrl: 'postgresql://u:p@db:5432/adplane',
      edition: 'CTVMediaV2V',
      publicHost: 'https://ads.example.com',
      sessionTtlHours: 12,
      demo: false,
      adminPassword: 'long-enough',
      encryptResponses: true,
      logLevel: 'silent',
      trustProxy: '10.0.0.0/8',
      metricsAllow: ['10.1.0.0/16', '192.0.2.7', 'fd00::/8'],
      metricsToken: 't'.repeat(24),
    });
    expect(loadSettings({ ADPLANE_METRICS_ALLOW: 'none' }).metricsAllow).toEqual([]);
    expect(() => loadSettings({ ADPLANE_METRICS_ALLOW: '10.0.0.0/33' })).toThrow(
      /ADPLANE_METRICS_ALLOW: must be 'none' or a comma-separated list/,
    );
    expect(() => loadSettings({ ADPLANE_METRICS_ALLOW: '0x7f.1' })).toThrow(
      /ADPLANE_METRICS_ALLOW: must be 'none' or a comma-separated list/,
    );
    for (const bad of ['10.0.0.0/33', '010.0.0.1', '10.1', '0.0.0.0/0']) {
      expect(() => loadSettings({ ADPLANE_TRUST_PROXY: bad }), bad).toThrow(
        /ADPLANE_TRUST_PROXY: must be '0', '1' or a comma-separated list/,
      );
    }
    expect(loadSettings({ ADPLANE_TRUST_PROXY: '10.0.0.0/8, ::1' }).trustProxy).toBe('10.0.0.0/8, ::1');
    expect(() => loadSettings({ ADPLANE_METRICS_TOKEN: 'short' })).toThrow(
      /ADPLANE_METRICS_TOKEN: must be at least 16 characters long \(got '\*\*\*'\)/,
    );
    expect(() => loadSettings({ ADPLANE_MAXMIND_DB: '/nowhere/GeoLite2-City.mmdb' })).toThrow(
      /ADPLANE_MAXMIND_DB: must be the path of a readable MaxMind .mmdb file/,
    );
    expect(loadSettings({}).maxmindDb).toBeNull();
    expect(loadSettings({}).prebidServerUrl).toBeNull();
    expect(
      loadSettings({ ADPLANE_PREBID_SERVER_URL: 'https://pbs.example.com/openrtb2/auction' }).prebidServerUrl,
    ).toBe('https://pbs.example.com/openrtb2/auction');
    expect(() => loadSettings({ ADPLANE_PREBID_SERVER_URL: 'pbs.example.com' })).toThrow(
      /ADPLANE_PREBID_SERVER_URL: must be an http:\/\/ or https:\/\/ URL/,
    );
    expect(loadSettings({ DATABASE_URL: '', ADPLANE_ENCRYPT_RESPONSES: '0', ADPLANE_LANDING_URL: '' })).toMatchObject({
      databaseUrl: null,
      encryptResponses: false,
      landingUrl: '',
    });
  });

  it('names each bad variable and why, all at once', () => {
    const problems = problemsOf({ PORT: 'eighty', ADPLANE_EDITION: 'gold', DATABASE_URL: 'mysql://db/adplane' });
    expect(problems).toEqual([
      { variable: 'PORT', message: "must be a whole number between 1 and 65535 (got 'eighty')" },
      {
        variable: 'DATABASE_URL',
        message:
          "must be a postgres:// or postgresql:// URL (leave it unset to use the embedded SQLite file) (got 'mysql://db/adplane')",
      },
      { variable: 'ADPLANE_EDITION', message: "must be one of default, V2V, CTVMediaV2V (got 'gold')" },
    ]);
  });

  it('explains the problems in the error message, hiding secrets', () => {
    expect(() => loadSettings({ PORT: '70000', ADPLANE_SESSION_SECRET: 'short' })).toThrow(
      "Invalid settings:\n  PORT: must be between 1 and 65535 (got '70000')\n  ADPLANE_SESSION_SECRET: must be at least 32 characters long (got '***')",
    );
  });

  it('checks switches, URLs and log levels', () => {
    expect(problemsOf({ ADPLANE_DEMO: 'yes' })[0]).toMatchObject({
      variable: 'ADPLANE_DEMO',
      message: "must be '0' or '1' (got 'yes')",
    });
    expect(problemsOf({ ADPLANE_HOST: 'ads.example.com' })[0].variable).toBe('ADPLANE_HOST');
    expect(problemsOf({ ADPLANE_LANDING_URL: 'ftp://x' })[0].variable).toBe('ADPLANE_LANDING_URL');
    expect(problemsOf({ LOG_LEVEL: 'loud' })[0].message).toMatch(/must be one of fatal, error/);
    expect(problemsOf({ ADPLANE_SESSION_TTL_HOURS: '0' })[0].message).toMatch(/at least 1 hour/);
    expect(loadSettings({}).keepAliveMs).toBe(65_000);
    expect(loadSettings({ ADPLANE_KEEPALIVE_SECONDS: '120' }).keepAliveMs).toBe(120_000);
    expect(problemsOf({ ADPLANE_KEEPALIVE_SECONDS: '0' })[0]).toMatchObject({
      variable: 'ADPLANE_KEEPALIVE_SECONDS',
      message: expect.stringMatching(/at least 1 second/),
    });
    expect(loadSettings({}).statsFlushMs).toBe(5_000);
    expect(loadSettings({ ADPLANE_STATS_FLUSH_SECONDS: '1' }).statsFlushMs).toBe(1_000);
    expect(problemsOf({ ADPLANE_STATS_FLUSH_SECONDS: '0' })[0]).toMatchObject({
      variable: 'ADPLANE_STATS_FLUSH_SECONDS',
      message: expect.stringMatching(/at least 1 second/),
    });
    expect(loadSettings({}).configPollMs).toBe(250);
    expect(loadSettings({ ADPLANE_CONFIG_POLL_MS: '60000' }).configPollMs).toBe(60_000);
    expect(problemsOf({ ADPLANE_CONFIG_POLL_MS: '10' })[0]).toMatchObject({
      variable: 'ADPLANE_CONFIG_POLL_MS',
      message: expect.stringMatching(/at least 50 milliseconds/),
    });
    expect(loadSettings({}).redisUrl).toBeNull();
    expect(loadSettings({ REDIS_URL: 'redis://127.0.0.1:6379/2' }).redisUrl).toBe('redis://127.0.0.1:6379/2');
    expect(problemsOf({ REDIS_URL: '127.0.0.1:6379' })[0]).toMatchObject({
      variable: 'REDIS_URL',
      message: expect.stringMatching(/must be a redis:\/\/ or rediss:\/\/ URL/),
    });
    // the keys' prefix: a deployment's own on a Redis others use too
    expect(loadSettings({}).redisPrefix).toBe('adplane:');
    expect(loadSettings({ ADPLANE_REDIS_PREFIX: 'adplane-eu:' }).redisPrefix).toBe('adplane-eu:');
    for (const bad of ['adplane', 'ad plane:', ':', 'a:b:'])
      expect(problemsOf({ ADPLANE_REDIS_PREFIX: bad })[0]).toMatchObject({
        variable: 'ADPLANE_REDIS_PREFIX',
        message: expect.stringMatching(/followed by a colon/),
      });
  });

  it('reads the pre-bid IVT settings and reports a bad one with the others', () => {
    expect(loadSettings({}).ivt).toEqual({
      files: { rangesFile: null, uaFile: null },
      rate: { maxPerDevice: 30, maxPerIpUa: 60, windowMs: 10_000, maxKeys: 200_000 },
    });
    expect(
      loadSettings({ ADPLANE_IVT_RANGES_FILE: '/etc/adplane/ranges.txt', ADPLANE_IVT_MAX_PER_DEVICE: '0' }).ivt,
    ).toMatchObject({ files: { rangesFile: '/etc/adplane/ranges.txt' }, rate: { maxPerDevice: 0 } });
    expect(problemsOf({ PORT: '70000', ADPLANE_IVT_RATE_WINDOW_S: 'ten' })).toEqual([
      { variable: 'PORT', message: "must be between 1 and 65535 (got '70000')" },
      { variable: 'ADPLANE_IVT_RATE_WINDOW_S', message: "must be a whole number from 1 to 3600 (got 'ten')" },
    ]);
  });
});

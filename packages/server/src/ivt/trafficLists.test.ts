import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkTraffic, createTrafficCheckState, type TrafficFacts } from './checkTraffic.js';
import { readIvtSettings } from './ivtSettings.js';
import { DEFAULT_RATE_LIMIT } from './requestRate.js';
import { loadTrafficLists, shippedTrafficLists, TrafficListError, trafficListFilesFromEnv } from './trafficLists.js';

const dir = mkdtempSync(join(tmpdir(), 'adplane-ivt-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

const facts: TrafficFacts = {
  origin: 'vast',
  source: 'c',
  ip: '73.162.18.44',
  ipFromConnection: false,
  ua: 'Roku/DVP-12.5 (12.5.0.4178)',
  environment: 'ctv',
  bundle: '151908',
  storeUrl: '',
  deviceId: '',
  deviceIdType: '',
  lmt: null,
  deviceType: 0,
  os: '',
  now: 0,
};
const check = (f: Partial<TrafficFacts>, lists = shippedTrafficLists()) =>
  checkTraffic({ ...facts, ...f }, createTrafficCheckState({ lists, rate: false })).reason;

describe('refresh files', () => {
  it('extend the shipped ranges, and exempt ranges with !', () => {
    const lists = loadTrafficLists({
      rangesFile: file('extend.txt', '# our own list\n73.162.0.0/16\n!52.94.236.0/24\n'),
    });
    expect(check({ ip: '73.162.18.44' }, lists)).toBe('datacenter_ip');
    expect(check({ ip: '52.94.236.248' }, lists)).toBe('');
    expect(check({ ip: '52.94.237.1' }, lists)).toBe('datacenter_ip');
    expect(lists.summary).toMatchObject({ exemptRanges: 1, rangesFile: join(dir, 'extend.txt') });
    expect(lists.summary.datacenterV4Ranges).toBeGreaterThan(5_000);
  });

  it('replace the shipped ranges with @replace', () => {
    const lists = loadTrafficLists({ rangesFile: file('replace.txt', '@replace\n198.51.100.0/24\n2001:db8::/32\n') });
    expect(check({ ip: '52.94.236.248' }, lists)).toBe('');
    expect(lists.summary).toMatchObject({ datacenterV4Ranges: 1, datacenterV6Ranges: 1 });
  });

  it('add and allow user-agent patterns', () => {
    const lists = loadTrafficLists({
      uaFile: file('ua.txt', '# spoofing tools we have seen\nctv-emulator\n!^partner-ssai/\n'),
    });
    expect(check({ ua: 'Roku/DVP-12.5 (12.5.0.4178) CTV-Emulator/2' }, lists)).toBe('bot_user_agent');
    expect(check({ ua: 'partner-ssai/2.1 (+https://ssai.example.net/bot)' }, lists)).toBe('');
    expect(check({ ua: 'partner-ssai/2.1 (+https://ssai.example.net/bot)' })).toBe('known_crawler');
    // the shipped patterns still apply
    expect(check({ ua: 'curl/8.4.0' }, lists)).toBe('bot_user_agent');
    const replaced = loadTrafficLists({ uaFile: file('ua-replace.txt', '@replace\n') });
    expect(replaced.summary.uaPatterns).toBe(0);
  });

  it('stop the start with every bad line, by file and line number', () => {
    const ranges = file('bad-ranges.txt', '1.2.3.0/24\n1.2.3.0/40\nnonsense\n');
    const ua = file('bad-ua.txt', 'fine\n(unclosed\n');
    let error: unknown;
    try {
      loadTrafficLists({ rangesFile: ranges, uaFile: ua });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(TrafficListError);
    expect((error as TrafficListError).problems).toEqual([
      `${ranges}:2: not a CIDR range: "1.2.3.0/40"`,
      `${ranges}:3: not a CIDR range: "nonsense"`,
      `${ua}:2: not a regular expression: "(unclosed"`,
    ]);
    expect(() => loadTrafficLists({ rangesFile: join(dir, 'missing.txt') })).toThrow(
      /ADPLANE_IVT_RANGES_FILE: cannot read .*missing\.txt \(ENOENT\)/,
    );
  });

  it('are named by ADPLANE_IVT_RANGES_FILE and ADPLANE_IVT_UA_FILE', () => {
    expect(
      trafficListFilesFromEnv({ ADPLANE_IVT_RANGES_FILE: ' /etc/adplane/dc.txt ', ADPLANE_IVT_UA_FILE: '' }),
    ).toEqual({ rangesFile: '/etc/adplane/dc.txt', uaFile: null });
    expect(trafficListFilesFromEnv({})).toEqual({ rangesFile: null, uaFile: null });
  });
});

describe('readIvtSettings', () => {
  it('reads the files and the rate limits, with defaults', () => {
    expect(readIvtSettings({})).toEqual({
      settings: { files: { rangesFile: null, uaFile: null }, rate: DEFAULT_RATE_LIMIT },
      problems: [],
    });
    const { settings, problems } = readIvtSettings({
      ADPLANE_IVT_UA_FILE: '/etc/ua.txt',
      ADPLANE_IVT_RATE_WINDOW_S: '60',
      ADPLANE_IVT_MAX_PER_DEVICE: '120',
      ADPLANE_IVT_MAX_PER_IP_UA: '0',
    });
    expect(problems).toEqual([]);
    expect(settings).toEqual({
      files: { rangesFile: null, uaFile: '/etc/ua.txt' },
      rate: { ...DEFAULT_RATE_LIMIT, windowMs: 60_000, maxPerDevice: 120, maxPerIpUa: 0 },
    });
  });

  it('reports each bad variable', () => {
    expect(readIvtSettings({ ADPLANE_IVT_RATE_WINDOW_S: '0', ADPLANE_IVT_MAX_PER_DEVICE: 'lots' }).problems).toEqual([
      { variable: 'ADPLANE_IVT_RATE_WINDOW_S', message: 'must be a whole number from 1 to 3600' },
      { variable: 'ADPLANE_IVT_MAX_PER_DEVICE', message: 'must be a whole number from 0 to 1000000' },
    ]);
  });

  it('turns a kind of rate key off with 0', () => {
    const state = createTrafficCheckState({ rate: { maxPerIpUa: 0 } });
    for (let i = 0; i < 200; i++) expect(checkTraffic({ ...facts, now: i }, state).reason).toBe('');
  });
});

import { describe, expect, it } from 'vitest';
import { OPERATING_SYSTEMS } from '@adplane/shared';
import { platformOf } from '../../../ivt/userAgent.js';
import { SAMPLE_UA_BY_OS, sampleUserAgent } from './sampleUserAgents.js';

describe('sample user agents of "Test this tag"', () => {
  it.each(OPERATING_SYSTEMS.map((o) => o.id))('%s reads back as its own OS', (os) => {
    expect(SAMPLE_UA_BY_OS[os], `a sample for ${os}`).toBeTruthy();
    expect(platformOf(SAMPLE_UA_BY_OS[os]!).os).toBe(os);
  });

  it('answers a device type with a platform of that type, and nothing when nothing is chosen', () => {
    for (const device of ['desktop', 'mobile', 'smarttv'])
      expect(platformOf(sampleUserAgent(undefined, device)).device).toBe(device);
    expect(sampleUserAgent(undefined, undefined)).toBe('');
    expect(sampleUserAgent('roku', 'desktop')).toBe(SAMPLE_UA_BY_OS.roku);
  });
});

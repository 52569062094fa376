import { describe, expect, it } from 'vitest';
import { AD_FORMATS, ENVIRONMENTS, INTEGRATIONS } from '../entities/common.js';
import {
  AD_FORMAT_OPTIONS,
  BROWSER_FAMILIES,
  CURRENCIES,
  DEVICE_TYPES,
  ENVIRONMENT_OPTIONS,
  INTEGRATION_OPTIONS,
  isVideoEvent,
  OPERATING_SYSTEMS,
  SMART_TV_FAMILIES,
  TIMEZONE_OPTIONS,
  VIDEO_EVENTS,
  VIDEO_EVENT_BY_ID,
} from './platforms.js';

const names = (items: readonly { name: string }[]) => items.map((i) => i.name);
const ids = (items: readonly { id: string | number }[]) => items.map((i) => i.id);

describe('platform lists', () => {
  it('has the integrations, environments and formats of the entity contract', () => {
    expect(ids(INTEGRATION_OPTIONS)).toEqual([...INTEGRATIONS]);
    expect(names(INTEGRATION_OPTIONS)).toEqual(['VAST', 'RTB', 'PreBid']);
    expect(ids(ENVIRONMENT_OPTIONS)).toEqual([...ENVIRONMENTS]);
    expect(ids(AD_FORMAT_OPTIONS)).toEqual([...AD_FORMATS]);
  });

  it('puts the seven console operating systems and its devices first', () => {
    expect(names(OPERATING_SYSTEMS).slice(0, 7)).toEqual([
      'Windows',
      'iOS',
      'Android',
      'Roku',
      'Tizen',
      'macOS',
      'Linux',
    ]);
    expect(names(DEVICE_TYPES)).toEqual(['Mobile', 'Desktop', 'SmartTV']);
    const ortb = DEVICE_TYPES.flatMap((d) => [...d.ortbDeviceTypes]);
    expect(new Set(ortb).size).toBe(ortb.length);
  });

  it('has smart-TV and browser families with unique ids', () => {
    for (const list of [OPERATING_SYSTEMS, SMART_TV_FAMILIES, BROWSER_FAMILIES])
      expect(new Set(ids(list)).size).toBe(list.length);
    expect(names(SMART_TV_FAMILIES)).toEqual(
      expect.arrayContaining(['Roku', 'Samsung Tizen', 'LG webOS', 'Amazon Fire TV', 'Apple TV']),
    );
    expect(names(BROWSER_FAMILIES)).toEqual(
      expect.arrayContaining(['Chrome', 'Safari', 'Firefox', 'Edge', 'Opera', 'Samsung Internet']),
    );
  });

  it('has USD with its symbol', () => {
    expect(CURRENCIES).toEqual([{ id: 'USD', name: 'US Dollar', symbol: '$' }]);
  });

  it('labels time zones -12..+12 with a sign', () => {
    expect(TIMEZONE_OPTIONS).toHaveLength(25);
    expect(TIMEZONE_OPTIONS[0]).toEqual({ id: -12, name: 'UTC-12' });
    expect(TIMEZONE_OPTIONS.at(-1)).toEqual({ id: 12, name: 'UTC+12' });
    const byOffset = new Map(TIMEZONE_OPTIONS.map((t) => [t.id, t.name]));
    expect(byOffset.get(3)).toBe('UTC+3');
    expect(byOffset.get(-5)).toBe('UTC-5');
    expect(byOffset.get(0)).toBe('UTC±0');
  });

  it('labels video events exactly as the console shows them', () => {
    expect(VIDEO_EVENTS.map((e) => [e.id, e.name])).toEqual([
      ['impression', 'Impression'],
      ['start', 'Start'],
      ['firstQuartile', 'First Quartile'],
      ['midpoint', 'Mid Point'],
      ['thirdQuartile', 'Third Quartile'],
      ['complete', 'Complete'],
    ]);
    expect(VIDEO_EVENT_BY_ID.get('midpoint')?.name).toBe('Mid Point');
    expect(isVideoEvent('complete')).toBe(true);
    expect(isVideoEvent('click')).toBe(false);
  });
});

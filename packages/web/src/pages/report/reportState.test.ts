import { describe, expect, it } from 'vitest';
import { ReportRequest } from '@adplane/shared';
import {
  changeForm,
  defaultForm,
  fromRequest,
  marketReportForm,
  presetRange,
  savedDatesText,
  toRequest,
} from './reportState.js';

// 2026-11-23 02:00 UTC: still the 22nd at UTC-5.
const NOW = Date.parse('2026-11-23T02:00:00Z');

describe('report form', () => {
  it('computes presets in the user time zone', () => {
    expect(presetRange('today', 0, NOW)).toEqual({ startDate: '2026-11-23', endDate: '2026-11-23' });
    expect(presetRange('today', -5, NOW)).toEqual({ startDate: '2026-11-22', endDate: '2026-11-22' });
    expect(presetRange('last7', 0, NOW)).toEqual({ startDate: '2026-11-17', endDate: '2026-11-23' });
    expect(presetRange('thisMonth', 3, NOW)).toEqual({ startDate: '2026-11-01', endDate: '2026-11-23' });
    expect(presetRange('lastMonth', 0, NOW)).toEqual({ startDate: '2026-10-01', endDate: '2026-10-31' });
  });

  it('builds the market report exactly as its helper is described (reportState.ts)', () => {
    const request = ReportRequest.parse(toRequest(marketReportForm(-5, NOW)));
    expect(request).toEqual({
      startDate: '2026-11-22',
      endDate: '2026-11-22',
      datePreset: 'today',
      timezone: -5,
      dimensions: ['marketplace_name'],
      metrics: ['rev_m', 'rev_md', 'imps', 'reqs', 'opps', 'fill'],
      filters: {},
      sort: { by: 'rev_m', order: 'desc' },
      hideErrors: true,
    });
  });

  it('makes a report rolling when a preset is picked, and fixed when dates are picked by hand', () => {
    const form = { ...defaultForm(0, NOW), datePreset: null, startDate: '2026-01-01', endDate: '2026-01-09' };
    const rolling = changeForm(form, { datePreset: 'yesterday' }, NOW);
    expect(rolling).toMatchObject({ datePreset: 'yesterday', startDate: '2026-11-22', endDate: '2026-11-22' });
    expect(ReportRequest.parse(toRequest(rolling)).datePreset).toBe('yesterday');
    // a new time zone moves the rolling range to that zone's days: at UTC-5 it is still the 22nd
    expect(changeForm(rolling, { timezone: -5 }, NOW)).toMatchObject({
      datePreset: 'yesterday',
      startDate: '2026-11-21',
      endDate: '2026-11-21',
      timezone: -5,
    });
    const fixed = changeForm(rolling, { startDate: '2026-11-01', endDate: '2026-11-05' }, NOW);
    expect(fixed).toMatchObject({ datePreset: null, startDate: '2026-11-01', endDate: '2026-11-05' });
    expect(toRequest(fixed)).not.toHaveProperty('datePreset');
    // other changes leave the dates and the preset alone
    expect(changeForm(rolling, { hideErrors: true }, NOW)).toMatchObject({
      datePreset: 'yesterday',
      startDate: '2026-11-22',
    });
  });

  it('opens a saved rolling report on the range of its preset today, and a fixed one on its dates', () => {
    const saved = {
      startDate: '2026-06-01',
      endDate: '2026-06-01',
      datePreset: 'yesterday' as const,
      timezone: 2,
      metrics: ['imps' as const],
    };
    // the report was saved on June 2nd; opened on November 23rd it shows November 22nd
    expect(fromRequest(saved, 0, NOW)).toMatchObject({
      datePreset: 'yesterday',
      startDate: '2026-11-22',
      endDate: '2026-11-22',
      timezone: 2,
    });
    const later = NOW + 86_400_000;
    expect(fromRequest(saved, 0, later)).toMatchObject({ startDate: '2026-11-23', endDate: '2026-11-23' });
    const { datePreset: _p, ...fixedSaved } = saved;
    expect(fromRequest(fixedSaved, 0, NOW)).toMatchObject({
      datePreset: null,
      startDate: '2026-06-01',
      endDate: '2026-06-01',
    });
  });

  it('names a rolling saved report by its preset in lists', () => {
    expect(savedDatesText({ startDate: '2026-11-22', endDate: '2026-11-22', datePreset: 'yesterday' })).toBe(
      'Yesterday (rolling): 2026-11-22 to 2026-11-22',
    );
    expect(savedDatesText({ startDate: '2026-11-01', endDate: '2026-11-05' })).toBe('2026-11-01 to 2026-11-05');
  });
});

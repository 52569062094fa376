import { describe, expect, it } from 'vitest';
import { TargetingInput, emptyTargetingRules } from '@adplane/shared';
import { type ResourceRow } from '../../resources/resourceApi.js';
import { rulesOf, targetingToBody, targetingToForm } from './index.js';

const row = (rules: unknown): ResourceRow =>
  ({ id: 4, name: 'US CTV', status: 1, archived: false, createdAt: '', updatedAt: '', rules }) as ResourceRow;

describe('targeting form <-> body', () => {
  it('fills the filters a stored row lacks', () => {
    const rules = rulesOf(row({ countries: { mode: 'include', values: ['US'] } }));
    expect(rules.countries).toEqual({ mode: 'include', values: ['US'] });
    expect(rules.iabCategories).toEqual({ mode: 'include', values: [] });
    expect(rules.dayParting.enabled).toBe(false);
    expect(targetingToForm(row(undefined))).toEqual({ name: 'US CTV', status: 1, rules: emptyTargetingRules() });
  });

  it('sends every filter, keeping those the form did not show', () => {
    const stored = row({ ...emptyTargetingRules(), pubLists: { mode: 'include', ids: [9] } });
    const body = targetingToBody(
      { name: 'US CTV', status: 0, rules: { countries: { mode: 'exclude', values: ['RU'] } } },
      stored,
    );
    expect(body.rules).toMatchObject({
      countries: { mode: 'exclude', values: ['RU'] },
      pubLists: { mode: 'include', ids: [9] },
    });
    expect(TargetingInput.safeParse(body).success).toBe(true);
    expect(Object.keys(body.rules as object).sort()).toEqual(Object.keys(emptyTargetingRules()).sort());
  });
});

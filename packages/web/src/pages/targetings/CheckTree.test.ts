import { describe, expect, it } from 'vitest';
import { checkState } from './CheckTree.js';
import { IAB_TREE, iabCheckedKeys } from './trees.js';

describe('checkState', () => {
  it('marks a parent checked when all its children are, half-checked when some are', () => {
    expect(checkState(IAB_TREE, iabCheckedKeys(['IAB1-1', 'IAB2']))).toEqual({
      checked: expect.arrayContaining(['IAB1-1', 'IAB2', 'IAB2-1']) as unknown as string[],
      halfChecked: ['IAB1'],
    });
    expect(checkState(IAB_TREE, iabCheckedKeys(['IAB1-1'])).checked).not.toContain('IAB1');
    // A parent key given without its children is not checked: the children decide.
    expect(checkState(IAB_TREE, ['IAB1']).checked).toEqual([]);
    // A leaf at the top level (IAB24 has no children) stays as given.
    expect(checkState(IAB_TREE, ['IAB24']).checked).toEqual(['IAB24']);
  });
});

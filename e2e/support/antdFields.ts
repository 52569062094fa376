import { type Locator, type Page, expect } from '@playwright/test';

/**
 * antd controls as a person uses them, for the SSP and accounts specs: pick an option of a select,
 * read a number input, find a list row by its exact name.
 */

/** The row whose name link is exactly `name` (a copy's "<name> (copy)" does not match). */
export function exactRow(page: Page, name: string): Locator {
  const exact = new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);
  return page
    .locator('.ant-table-row')
    .filter({ has: page.locator('[data-testid^="row-open-"]').filter({ hasText: exact }) });
}

/** The id of a list row (the table's row key). */
export async function rowId(row: Locator): Promise<string> {
  const id = await row.getAttribute('data-row-key');
  expect(id).toMatch(/^\d+$/);
  return id!;
}

/**
 * Click `trigger` until `shown` is visible: a row's menu or popover opened while the list re-renders
 * (the rows' numbers arrive after the rows) may be lost, or the click land beside a button that moved.
 */
export async function clickUntilShown(trigger: Locator, shown: Locator): Promise<void> {
  await expect(async () => {
    if (!(await shown.isVisible())) await trigger.click({ timeout: 5_000 });
    await expect(shown).toBeVisible({ timeout: 3_000 });
  }).toPass({ timeout: 30_000 });
}

/** Open an antd select (its search input or its box), narrow it by typing, and pick the option showing `option`. */
export async function pickOption(page: Page, field: Locator, option: string, search = option): Promise<void> {
  await field.click();
  if (search) await page.keyboard.type(search);
  await page.locator('.ant-select-dropdown:visible .ant-select-item-option', { hasText: option }).first().click();
}

/** The <input> of a control found by test id: the test id may sit on the input itself or on its wrapper. */
export function inputOf(control: Locator): Locator {
  return control.locator('xpath=self::input | self::textarea | .//input | .//textarea').first();
}

/** The antd form item whose label starts with `label`, within `scope`. */
export function formItem(scope: Locator, label: string): Locator {
  return scope
    .locator('.ant-form-item')
    .filter({ has: scope.page().locator('.ant-form-item-label', { hasText: label }) })
    .first();
}

/**
 * An antd modal ready for input: visible, and its opening zoom over. While the zoom is being
 * prepared the dialog sits at full size for a frame or more (transparent, but stable to Playwright),
 * then shrinks to scale(0) and grows back: a click aimed in that window lands beside its target (on
 * the mask, which closes the modal). The motion classes (`ant-zoom-appear`, `ant-zoom-enter`) are
 * gone once it is over.
 */
export async function openedModal(page: Page, testId: string): Promise<Locator> {
  const modal = page.locator(`.ant-modal:has([data-testid="${testId}"]), .ant-modal[data-testid="${testId}"]`).first();
  await expect(modal).toBeVisible();
  await expect(modal).not.toHaveClass(/ant-zoom-(appear|enter)/);
  return modal;
}

/**
 * Resolves once `el` has stopped moving (a drawer sliding in, a smooth scroll): its place on `axis`
 * the same over ten animation frames in a row, read in the page, frame by frame.
 */
export async function stoppedMoving(el: Locator, axis: 'x' | 'y'): Promise<void> {
  await el.evaluate(
    (node, along) =>
      new Promise<void>((resolve) => {
        const place = () => node.getBoundingClientRect()[along];
        let last = place();
        let still = 0;
        const frame = () => {
          const now = place();
          if (Math.abs(now - last) < 1) still++;
          else [still, last] = [0, now];
          if (still >= 10) resolve();
          else requestAnimationFrame(frame);
        };
        requestAnimationFrame(frame);
      }),
    axis,
  );
}

import { type Locator, type Page, expect } from '@playwright/test';
import { clickUntilShown } from './antdFields.js';
import { signInAt } from './session.js';

/**
 * Page object of every resource list page (ResourceListPage in packages/web/src/resources): the
 * selectors live here so that specs read as ad-ops steps.
 */
/** The question a drawer or form asks before closing with unsaved changes (Keep editing / Discard). */
export const discardDialog = (page: Page): Locator =>
  page.locator('.ant-modal-confirm', { hasText: 'Discard unsaved changes?' });

export class ResourcePage {
  constructor(
    readonly page: Page,
    readonly kind: string,
    readonly path: string,
  ) {}

  async open(): Promise<void> {
    await this.page.goto(this.path);
    // the first load of the console on a busy machine (a 1 MB bundle, the session probe, the list) may take more than the default 10 s
    await expect(this.page.getByTestId(`page-${this.kind}`)).toBeVisible({ timeout: 30_000 });
  }

  /** Signs in as `username` straight onto this list, in `mode` when given (signInAt: one load of the console). */
  async openAs(username: string, mode?: 'ssp' | 'dsp'): Promise<void> {
    await signInAt(this.page, username, this.path, mode);
    await expect(this.page.getByTestId(`page-${this.kind}`)).toBeVisible({ timeout: 30_000 });
  }

  get drawer(): Locator {
    return this.page.getByTestId('resource-drawer');
  }

  async startNew(): Promise<void> {
    await this.page.getByTestId('resource-new').click();
    await expect(this.drawer).toBeVisible();
  }

  async save(): Promise<void> {
    await this.page.getByTestId('resource-save').click();
    await expect(this.drawer).toBeHidden();
  }

  async search(text: string): Promise<void> {
    const input = this.page.getByTestId('resource-search').locator('input');
    // The search is in the URL once the list has asked for it; rows read after this are filtered.
    // Typed again if the list re-rendered under the typing (a drawer closing, a save reloading).
    await expect(async () => {
      await input.fill(text);
      await input.press('Enter');
      await expect(this.page).toHaveURL((url) => url.searchParams.get('search') === text.trim(), { timeout: 2000 });
    }).toPass({ timeout: 15_000 });
  }

  row(name: string): Locator {
    return this.page.locator('.ant-table-row', { hasText: name });
  }

  /** Show columns the list hides by default, by key (the column chooser remembers it for this user). */
  async showColumns(...keys: string[]): Promise<void> {
    await this.setColumns(Object.fromEntries(keys.map((key) => [key, true])));
  }

  /** Shows (true) or hides (false) columns by key with the column chooser, then closes it. */
  async setColumns(wanted: Record<string, boolean>): Promise<void> {
    await this.page.getByTestId('column-chooser-open').click();
    await expect(this.page.getByTestId('column-chooser')).toBeVisible();
    for (const [key, shown] of Object.entries(wanted)) {
      // The test id may sit on the checkbox's input or on its label.
      const toggle = this.page.getByTestId(`column-toggle-${key}`);
      const box = toggle.locator('xpath=self::input | .//input').first();
      // A click that lands while the popover still zooms in can be lost on a busy machine (CI saw a
      // box keep its state): click again until it shows the state, giving each click time to render.
      await expect(async () => {
        if ((await box.isChecked()) !== shown) await toggle.click({ timeout: 5_000 });
        await expect(box).toBeChecked({ checked: shown, timeout: 5_000 });
      }).toPass({ timeout: 30_000 });
    }
    await this.page.getByTestId('column-chooser-open').click();
    await expect(this.page.getByTestId('column-chooser')).toBeHidden();
  }

  /** An action of a row's "More" menu (archive or restore, duplicate, delete). */
  async moreAction(id: string, action: 'archive' | 'restore' | 'duplicate' | 'delete'): Promise<void> {
    const item = this.page.getByTestId(`row-${action}-${id}`);
    await clickUntilShown(this.page.getByTestId(`row-more-${id}`), item);
    await item.click();
  }

  async openRow(name: string): Promise<void> {
    // The row's numbers arrive after the rows and re-render the table: a click that lands during that
    // render is lost, so the name is clicked again until the drawer opens (opening is idempotent).
    await expect(async () => {
      if (!(await this.drawer.isVisible())) await this.row(name).getByRole('link', { name }).click({ timeout: 5_000 });
      await expect(this.drawer).toBeVisible({ timeout: 5_000 });
    }).toPass({ timeout: 30_000 });
  }
}

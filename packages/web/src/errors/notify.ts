import { type App } from 'antd';
import { errorText, LOAD_ERROR_TITLE, SAVE_ERROR_TITLE } from './messages.js';

/**
 * Error toasts. The antd notification instance comes from `<App>` (so toasts carry the theme); the
 * ErrorToasts component registers it. Before that, or in tests without it, toasts go to the console.
 */
type NotificationInstance = ReturnType<typeof App.useApp>['notification'];

let notifier: NotificationInstance | null = null;

export function registerNotifier(instance: NotificationInstance | null): void {
  notifier = instance;
}

export function showErrorToast(title: string, error: unknown): void {
  const description = errorText(error);
  if (notifier) notifier.error({ title, description, placement: 'topRight', duration: 6 });
  else console.error(`${title}: ${description}`);
}

export function notifyLoadError(error: unknown): void {
  showErrorToast(LOAD_ERROR_TITLE, error);
}

export function notifySaveError(error: unknown): void {
  showErrorToast(SAVE_ERROR_TITLE, error);
}

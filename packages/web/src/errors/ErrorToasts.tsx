import { useEffect } from 'react';
import { App } from 'antd';
import { registerNotifier, showErrorToast } from './notify.js';
import { SHOW_ERROR_EVENT, type ShowErrorDetail } from './messages.js';

/** Connects toasts to the themed antd App and answers the global `showError` window event. */
export function ErrorToasts(): null {
  const { notification } = App.useApp();
  useEffect(() => {
    registerNotifier(notification);
    const onShowError = (event: Event) => {
      const detail = ((event as CustomEvent<ShowErrorDetail | undefined>).detail ?? {}) as ShowErrorDetail;
      showErrorToast(detail.title || 'Error', detail.message === undefined ? undefined : { message: detail.message });
    };
    window.addEventListener(SHOW_ERROR_EVENT, onShowError);
    return () => {
      window.removeEventListener(SHOW_ERROR_EVENT, onShowError);
      registerNotifier(null);
    };
  }, [notification]);
  return null;
}

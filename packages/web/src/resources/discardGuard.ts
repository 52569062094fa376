import { App } from 'antd';
import { useCallback, useEffect, useRef } from 'react';

/**
 * Closing a form that holds typed work asks first. Escape, a click on the mask, the close X and
 * Cancel all come through `useDiscardGuard`'s `requestClose`: a form with no changes closes at once,
 * one with changes asks "Discard unsaved changes?" (Keep editing / Discard). An Escape meant for a
 * popup open inside the form (a date picker, a select, a menu, a popover) closes that popup only.
 */

/**
 * Popups that close themselves on Escape. A date picker closes its panel in React's keydown handler,
 * which runs before the drawer's own (window) Escape listener, so by then the panel is gone and the
 * drawer would take the key as its own: the popup is looked for when the key is first seen instead.
 */
const POPUPS = [
  '.ant-picker-dropdown',
  '.ant-select-dropdown',
  '.ant-cascader-dropdown',
  '.ant-dropdown',
  '.ant-popover',
  '.ant-color-picker',
].join(', ');

/** An antd popup is on screen: its root is rendered and not marked hidden (`ant-picker-dropdown-hidden`, ...). */
function popupOpen(): boolean {
  for (const el of document.querySelectorAll<HTMLElement>(POPUPS)) {
    if (![...el.classList].some((c) => c.endsWith('-hidden'))) return true;
  }
  return false;
}

/** The last Escape keydown that found a popup open (seen in the capture phase, before any handler). */
let popupEscape: Event | null = null;
let listeners = 0;
const onKeyDownCapture = (event: KeyboardEvent) => {
  if (event.key === 'Escape') popupEscape = popupOpen() ? event : null;
};

/** Whether a close request comes from an Escape that was meant for a popup. */
function isPopupEscape(event: unknown): boolean {
  if (!event || !popupEscape) return false;
  const native = (event as { nativeEvent?: unknown }).nativeEvent ?? event;
  return native === popupEscape;
}

export function useDiscardGuard(opts: {
  /** While open, Escape keys are watched for popups. */
  open: boolean;
  /** Whether the form holds changes that closing would lose. */
  isDirty: () => boolean;
  close: () => void;
}): (event?: unknown) => void {
  const { modal } = App.useApp();
  const asking = useRef(false);
  const latest = useRef(opts);
  latest.current = opts;

  useEffect(() => {
    if (!opts.open) return;
    if (listeners++ === 0) window.addEventListener('keydown', onKeyDownCapture, true);
    return () => {
      if (--listeners === 0) window.removeEventListener('keydown', onKeyDownCapture, true);
    };
  }, [opts.open]);

  return useCallback(
    (event?: unknown) => {
      if (isPopupEscape(event) || asking.current) return;
      if (!latest.current.isDirty()) {
        latest.current.close();
        return;
      }
      asking.current = true;
      modal.confirm({
        title: 'Discard unsaved changes?',
        content: 'What you changed in this form has not been saved.',
        okText: 'Discard',
        okButtonProps: { danger: true },
        cancelText: 'Keep editing',
        focusable: { autoFocusButton: 'cancel' },
        onOk: () => {
          asking.current = false;
          latest.current.close();
        },
        onCancel: () => {
          asking.current = false;
        },
      });
    },
    [modal],
  );
}

/**
 * A form's values as text, to compare with what it was opened with (dates, dayjs, read as their ISO
 * instant); null when they cannot be written out (a cycle), which the caller takes as changed.
 */
export function formSnapshot(values: unknown): string | null {
  try {
    return JSON.stringify(values) ?? '';
  } catch {
    return null;
  }
}

import { Alert, ConfigProvider, type ThemeConfig } from 'antd';
import { type ReactNode, type RefObject, useLayoutEffect, useRef } from 'react';
import { EMPTY_MARK } from '../format/empty.js';
import './forms.css';

/**
 * antd draws disabled controls in a pale grey on grey: legible only with effort. In the read-only
 * view the controls stay disabled (nothing can be typed, picked or tabbed into) but draw their values
 * in the normal text colour without a box; forms.css hides what only editing needs (arrows,
 * placeholders, the options not chosen, add and remove buttons).
 */
const READ_ONLY_THEME: ThemeConfig = {
  token: {
    colorTextDisabled: 'rgba(0, 0, 0, 0.88)',
    colorBgContainerDisabled: 'transparent',
  },
};

/**
 * The read-only view of a form: a banner saying why nothing can be changed, and the values as text.
 * Give the Form `disabled` and `variant="borderless"` as well (readOnlyFormProps). Every empty field
 * of the view shows the empty mark (markEmptyFields), whatever form it belongs to.
 */
export function ReadOnlyView({
  readOnly,
  reason,
  children,
}: {
  readOnly: boolean;
  reason: ReactNode;
  children: ReactNode;
}) {
  const viewRef = useRef<HTMLDivElement>(null);
  useEmptyMarks(viewRef, readOnly);
  if (!readOnly) return <>{children}</>;
  return (
    <ConfigProvider theme={READ_ONLY_THEME}>
      <div className="form-readonly" data-testid="form-readonly" ref={viewRef}>
        <Alert
          className="form-readonly-banner"
          type="info"
          showIcon
          title="View only"
          description={reason}
          data-testid="form-readonly-banner"
        />
        {children}
      </div>
    </ConfigProvider>
  );
}

/** The Form props of a form that may be read-only: disabled, boxes off, no required marks. */
export function readOnlyFormProps(readOnly: boolean): {
  disabled: boolean;
  requiredMark: boolean;
  variant?: 'borderless';
} {
  return readOnly
    ? { disabled: true, requiredMark: false, variant: 'borderless' }
    : { disabled: false, requiredMark: true };
}

/** Inputs that hold a value of their own (text, numbers, dates); not a search box, a checkbox or a file. */
const VALUE_INPUT_TYPES = new Set(['text', 'number', 'email', 'url', 'tel']);

/**
 * Give every field under `root` the empty mark as its placeholder, so that an empty one reads as "no
 * value" (what lists show) rather than as a blank, and a filled one is unchanged. Text inputs, text
 * areas, number inputs and date pickers get it as their placeholder attribute; selects (tree selects,
 * auto-completes) show their placeholder as text, which is replaced when it is plain text. A field's
 * own placeholder ("None (all traffic)", "Unlimited") is a hint for typing: the editable form keeps it.
 * Only the form's fields (inside a form item) are marked: a tool beside them (a search box, the ads.txt
 * check) holds no value of the row.
 */
function markEmptyFields(root: ParentNode): void {
  for (const field of root.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>(
    '.ant-form-item input, .ant-form-item textarea',
  )) {
    // (a select's own search input: the select draws its placeholder elsewhere, below)
    if (
      field instanceof HTMLInputElement &&
      (!VALUE_INPUT_TYPES.has(field.type) || field.classList.contains('ant-select-input'))
    )
      continue;
    if (field.getAttribute('placeholder') !== EMPTY_MARK) field.setAttribute('placeholder', EMPTY_MARK);
  }
  for (const placeholder of root.querySelectorAll<HTMLElement>('.ant-form-item .ant-select-placeholder')) {
    // Only text is replaced: React sets a text placeholder as the element's text (and sets it again
    // whole when it changes), while an element placeholder is React's own node, not to be taken away.
    if (placeholder.children.length === 0 && placeholder.textContent !== EMPTY_MARK)
      placeholder.textContent = EMPTY_MARK;
  }
}

/**
 * Mark the empty fields of the read-only view, and those that appear later (a tab opened, a field shown
 * by another's value, options loaded). antd has no setting for a default placeholder, and giving one
 * to every field of every form by hand is how blanks came back; so the view does it once, for all.
 */
function useEmptyMarks(viewRef: RefObject<HTMLDivElement | null>, readOnly: boolean): void {
  useLayoutEffect(() => {
    const root = viewRef.current;
    if (!readOnly || !root) return;
    markEmptyFields(root);
    // Marking changes only what differs, so the changes it makes itself end the round.
    const observer = new MutationObserver(() => markEmptyFields(root));
    observer.observe(root, {
      subtree: true,
      childList: true,
      characterData: true,
      attributes: true,
      attributeFilter: ['placeholder', 'type'],
    });
    return () => observer.disconnect();
  }, [viewRef, readOnly]);
}

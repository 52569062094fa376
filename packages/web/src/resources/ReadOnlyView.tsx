import { Alert, ConfigProvider, type ThemeConfig } from 'antd';
import { type ReactNode } from 'react';
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
 * Give the Form `disabled` and `variant="borderless"` as well (readOnlyFormProps).
 */
export function ReadOnlyView({ readOnly, reason, children }: { readOnly: boolean; reason: ReactNode; children: ReactNode }) {
  if (!readOnly) return <>{children}</>;
  return (
    <ConfigProvider theme={READ_ONLY_THEME}>
      <div className="form-readonly" data-testid="form-readonly">
        <Alert className="form-readonly-banner" type="info" showIcon title="View only" description={reason} data-testid="form-readonly-banner" />
        {children}
      </div>
    </ConfigProvider>
  );
}

/** The Form props of a form that may be read-only: disabled, boxes off, no required marks. */
export function readOnlyFormProps(readOnly: boolean): { disabled: boolean; requiredMark: boolean; variant?: 'borderless' } {
  return readOnly ? { disabled: true, requiredMark: false, variant: 'borderless' } : { disabled: false, requiredMark: true };
}

/**
 * The placeholder of a field that may be read-only: in the read-only view an empty field reads as the
 * console's empty mark (forms.css shows it in grey), not as a blank; while editing, `editing`.
 * Other placeholders stay hidden in the read-only view: they are hints for typing, not values.
 */
export function readOnlyPlaceholder(readOnly: boolean, editing?: string): string | undefined {
  return readOnly ? EMPTY_MARK : editing;
}

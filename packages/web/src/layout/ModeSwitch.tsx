import { useState } from 'react';
import { Segmented, Tooltip } from 'antd';
import { MODES, type Mode } from '@adplane/shared';
import { showErrorToast } from '../errors/notify.js';
import { modeLabel, requestModeSwitch } from '../prefs/mode.js';

/**
 * SSP | DSP in the top bar, for those who may switch (navigation.modeSwitch): the view that is on is
 * selected; picking the other asks the server, stores the choice and reloads the page.
 */
export function ModeSwitch({ current }: { current: Mode }) {
  const [pending, setPending] = useState<Mode | null>(null);
  const pick = (next: Mode) => {
    if (next === current || pending) return;
    setPending(next);
    requestModeSwitch(next).catch((error: unknown) => {
      setPending(null);
      showErrorToast('The view was not switched', error);
    });
  };
  return (
    <Tooltip
      title={`You are in the ${modeLabel(current)} view: ${current === 'ssp' ? 'channels, subpublishers and demand tags' : 'campaigns, creatives, suppliers, ad exchanges and deals'}`}
      placement="bottom"
    >
      <Segmented<Mode>
        className="app-mode-switch"
        size="small"
        value={pending ?? current}
        disabled={pending !== null}
        onChange={pick}
        options={MODES.map((mode) => ({
          value: mode,
          label: <span data-testid={`mode-switch-${mode}`}>{modeLabel(mode)}</span>,
        }))}
        aria-label="SSP or DSP view"
        data-testid="mode-switch"
      />
    </Tooltip>
  );
}

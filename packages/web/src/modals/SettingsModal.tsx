import { useState } from 'react';
import { App, Button, Checkbox, Modal, Typography } from 'antd';
import { api } from '../api/client.js';
import { notifySaveError } from '../errors/notify.js';
import { readUiTabs, writeUiTabs } from '../prefs/uiTabs.js';

const SETTINGS_TITLE = 'User Interface Settings';

interface Props {
  open: boolean;
  onClose: () => void;
}

/**
 * 'User Interface Settings': one checkbox, 'Open links in new Tabs'. The flag is
 * stored under the local-storage key ui_tabs at once, and sent to PUT /api/ui/settings so that it
 * follows the user to other browsers.
 */
export function SettingsModal({ open, onClose }: Props) {
  return (
    <Modal
      title={SETTINGS_TITLE}
      open={open}
      onCancel={onClose}
      footer={
        <Button onClick={onClose} data-testid="settings-close">
          Close
        </Button>
      }
      destroyOnHidden
      width={420}
      data-testid="settings-modal"
    >
      {open && <SettingsForm />}
    </Modal>
  );
}

function SettingsForm() {
  const { message } = App.useApp();
  const [tabs, setTabs] = useState(readUiTabs);
  const [saving, setSaving] = useState(false);

  const save = async (next: boolean) => {
    setTabs(next);
    writeUiTabs(next);
    setSaving(true);
    try {
      await api.put('/api/ui/settings', { tabs: next });
      void message.success('Settings saved');
    } catch (error) {
      notifySaveError(error);
    } finally {
      setSaving(false);
    }
  };

  return (
    <div className="settings-form">
      <Checkbox
        checked={tabs}
        disabled={saving}
        onChange={(e) => void save(e.target.checked)}
        data-testid="settings-tabs"
      >
        Open links in new Tabs
      </Checkbox>
      <Typography.Paragraph type="secondary" className="settings-hint">
        When ticked, the links of the navigation bar open in a new browser tab.
      </Typography.Paragraph>
    </div>
  );
}

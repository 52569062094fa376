import { AimOutlined, CheckCircleOutlined, CloseOutlined, InboxOutlined, PauseCircleOutlined, UndoOutlined } from '@ant-design/icons';
import { App, Button, Modal, Space, Typography } from 'antd';
import { type ReactNode, useState } from 'react';
import { type BulkAction, type BulkAnswer, type ResourceDef, bulkActionsOf } from '@adplane/shared';
import { notifySaveError } from '../errors/notify.js';
import { RefSelect } from './fields.js';
import { inSentence } from './labels.js';
import { type ResourceApi } from './resourceApi.js';

const ICONS: Record<BulkAction, ReactNode> = {
  pause: <PauseCircleOutlined />,
  activate: <CheckCircleOutlined />,
  archive: <InboxOutlined />,
  restore: <UndoOutlined />,
  setTargeting: <AimOutlined />,
};

const DONE: Record<BulkAction, string> = { pause: 'Paused', activate: 'Activated', archive: 'Archived', restore: 'Restored', setTargeting: 'Targeting set on' };

/**
 * What to do with the selected rows: pause, activate, archive (or restore, on the archived view) and,
 * where the kind has one, set their targeting. One call for all of them (POST {api}/bulk): all or
 * nothing, and a refusal names the row and why.
 */
export function BulkBar({ def, api, selected, archivedView, onDone, onClear }: {
  def: ResourceDef;
  api: ResourceApi;
  selected: number[];
  archivedView: boolean;
  onDone: () => void;
  onClear: () => void;
}) {
  const { message } = App.useApp();
  const [busy, setBusy] = useState<BulkAction | null>(null);
  const [targetingOpen, setTargetingOpen] = useState(false);
  const [targetingId, setTargetingId] = useState<number | null>(null);
  const actions = bulkActionsOf(def).filter((a) => (archivedView ? a === 'restore' : a !== 'restore'));
  const rows = `${selected.length} ${inSentence(selected.length === 1 ? def.label : def.plural)}`;

  const run = async (action: BulkAction, extra: { targetingId?: number | null } = {}) => {
    setBusy(action);
    try {
      const answer: BulkAnswer = await api.bulk({ action, ids: selected, ...extra });
      const skipped = answer.unchanged.length ? ` (${answer.unchanged.length} already so)` : '';
      message.success(`${DONE[action]} ${answer.changed.length} of ${rows}${skipped}`);
      onDone();
      return true;
    } catch (error) {
      notifySaveError(error);
      return false;
    } finally {
      setBusy(null);
    }
  };

  if (selected.length === 0 || actions.length === 0) return null;
  return (
    <div className="bulk-bar" data-testid="bulk-bar">
      <Typography.Text strong data-testid="bulk-count">
        {selected.length} selected
      </Typography.Text>
      <Space size={4} wrap>
        {actions.map((action) => (
          <Button
            key={action}
            size="small"
            icon={ICONS[action]}
            loading={busy === action}
            disabled={busy !== null && busy !== action}
            data-testid={`bulk-${action}`}
            onClick={() => (action === 'setTargeting' ? setTargetingOpen(true) : void run(action))}
          >
            {action === 'setTargeting' ? 'Set targeting…' : action[0].toUpperCase() + action.slice(1)}
          </Button>
        ))}
        <Button size="small" type="text" icon={<CloseOutlined />} onClick={onClear} data-testid="bulk-clear">
          Clear selection
        </Button>
      </Space>
      <Modal
        title={`Set the targeting of ${rows}`}
        open={targetingOpen}
        okText="Set targeting"
        confirmLoading={busy === 'setTargeting'}
        onCancel={() => setTargetingOpen(false)}
        onOk={() => void run('setTargeting', { targetingId }).then((ok) => ok && setTargetingOpen(false))}
        destroyOnHidden
      >
        <p>Every selected row gets this targeting; leave it empty to take their targeting off.</p>
        <RefSelect kind="targetings" value={targetingId} onChange={(v) => setTargetingId((v as number | null) ?? null)} placeholder="No targeting" />
      </Modal>
    </div>
  );
}

import {
  AimOutlined,
  CheckCircleOutlined,
  CloseOutlined,
  InboxOutlined,
  PauseCircleOutlined,
  PlusSquareOutlined,
  UndoOutlined,
} from '@ant-design/icons';
import { App, Button, Modal, Space, Typography } from 'antd';
import { type ReactNode, useState } from 'react';
import {
  BULK_ACTION_LABELS,
  type BulkAction,
  type BulkAnswer,
  LIST_OF_ROWS,
  RESOURCES,
  type ResourceDef,
  bulkActionsOf,
} from '@adplane/shared';
import { setList } from '../api/lists.js';
import { useAuth } from '../auth/authContext.js';
import { isEntitled } from '../auth/guards.js';
import { notifySaveError } from '../errors/notify.js';
import { RefSelect } from './fields.js';
import { inSentence } from './labels.js';
import { listNameOf, type ResourceApi } from './resourceApi.js';

const ICONS: Record<BulkAction, ReactNode> = {
  pause: <PauseCircleOutlined />,
  activate: <CheckCircleOutlined />,
  archive: <InboxOutlined />,
  restore: <UndoOutlined />,
  setTargeting: <AimOutlined />,
  addToList: <PlusSquareOutlined />,
};

const DONE: Record<BulkAction, string> = {
  pause: 'Paused',
  activate: 'Activated',
  archive: 'Archived',
  restore: 'Restored',
  setTargeting: 'Targeting set on',
  addToList: 'Added',
};

/** What the answer of an "add to list" says: each list named with what it gained. */
function listsDone(answer: BulkAnswer): string {
  return (answer.lists ?? []).map((l) => `'${l.name}' +${l.added} (${l.total} in all)`).join(', ');
}

/**
 * What to do with the selected rows: pause, activate, archive (or restore, on the archived view),
 * where the kind has one, set their targeting, and where a list holds the kind (creatives), add them
 * to lists. One call for all of them (POST {api}/bulk): all or
 * nothing, and a refusal names the row and why.
 */
export function BulkBar({
  def,
  api,
  selected,
  archivedView,
  onDone,
  onClear,
}: {
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
  const [listOpen, setListOpen] = useState(false);
  const [listIds, setListIds] = useState<number[]>([]);
  const { user } = useAuth();
  const listKind = LIST_OF_ROWS[def.kind];
  const actions = bulkActionsOf(def).filter(
    (a) =>
      (archivedView ? a === 'restore' : a !== 'restore') &&
      (a !== 'addToList' || (listKind && isEntitled(user, listKind))),
  );
  const rows = `${selected.length} ${inSentence(selected.length === 1 ? def.label : def.plural)}`;
  const opens: Partial<Record<BulkAction, () => void>> = {
    setTargeting: () => setTargetingOpen(true),
    addToList: () => setListOpen(true),
  };

  const run = async (action: BulkAction, extra: { targetingId?: number | null; listIds?: number[] } = {}) => {
    setBusy(action);
    try {
      const answer: BulkAnswer = await api.bulk({ action, ids: selected, ...extra });
      const skipped = answer.unchanged.length ? ` (${answer.unchanged.length} already so)` : '';
      const lists = answer.lists ? ` to ${listsDone(answer)}` : '';
      if (listKind && answer.lists) setList(listNameOf(listKind)!, null);
      message.success(`${DONE[action]} ${answer.changed.length} of ${rows}${lists}${skipped}`);
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
            onClick={() => (opens[action] ? opens[action]() : void run(action))}
          >
            {opens[action] ? `${BULK_ACTION_LABELS[action]}…` : BULK_ACTION_LABELS[action]}
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
        <RefSelect
          kind="targetings"
          value={targetingId}
          onChange={(v) => setTargetingId((v as number | null) ?? null)}
          placeholder="No targeting"
        />
      </Modal>
      {listKind && (
        <Modal
          title={`Add ${rows} to ${inSentence(RESOURCES[listKind].plural)}`}
          open={listOpen}
          okText="Add to lists"
          okButtonProps={{ disabled: listIds.length === 0 }}
          confirmLoading={busy === 'addToList'}
          onCancel={() => setListOpen(false)}
          onOk={() => void run('addToList', { listIds }).then((ok) => ok && setListOpen(false))}
          destroyOnHidden
        >
          <p>
            Each list gets the selected {inSentence(def.plural)} it does not hold yet; a list that would go over its
            limit stops the whole change.
          </p>
          <div data-testid="bulk-list-select">
            <RefSelect
              kind={listKind}
              multiple
              value={listIds}
              onChange={(v) => setListIds((v as number[] | null) ?? [])}
              placeholder={`Pick ${inSentence(RESOURCES[listKind].plural)}`}
            />
          </div>
        </Modal>
      )}
    </div>
  );
}

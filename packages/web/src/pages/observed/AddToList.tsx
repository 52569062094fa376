import { useState } from 'react';
import { App, Button, Modal, Select, Typography } from 'antd';
import { PlusOutlined } from '@ant-design/icons';
import { type ListAddAnswer, RESOURCES } from '@adplane/shared';
import { api } from '../../api/client.js';
import { setList, useList } from '../../api/lists.js';
import { useAuth } from '../../auth/authContext.js';
import { isEntitled } from '../../auth/guards.js';
import { notifySaveError } from '../../errors/notify.js';
import { type ObservedKind } from './observedKinds.js';

/**
 * Add values seen in traffic to the tenant's lists in one call (POST {list api}/add): all or nothing,
 * each value checked by the list's own rule, one activity entry per list that gained any.
 */
async function addToLists(
  kind: ObservedKind,
  listIds: readonly number[],
  values: readonly string[],
): Promise<ListAddAnswer> {
  return api.post<ListAddAnswer>(`${RESOURCES[kind.listKind].api}/add`, { listIds, items: values });
}

/** The action, where the list kind exists for the user: Creative and Publisher Lists are V2V only (the server refuses them elsewhere). */
export function AddToListButton({ kind, values }: { kind: ObservedKind; values: string[] }) {
  const { user } = useAuth();
  return isEntitled(user, kind.listKind) ? <AddToListAction kind={kind} values={values} /> : null;
}

function AddToListAction({ kind, values }: { kind: ObservedKind; values: string[] }) {
  const { message } = App.useApp();
  const { items: lists } = useList(kind.listName);
  const [open, setOpen] = useState(false);
  const [listIds, setListIds] = useState<number[]>([]);
  const submit = async () => {
    if (listIds.length === 0) return;
    try {
      const { lists: done } = await addToLists(kind, listIds, values);
      setList(kind.listName, null);
      const added = done.reduce((n, l) => n + l.added, 0);
      void message.success(
        added === 0 ? 'Already in the lists' : `Added to ${done.map((l) => `'${l.name}' +${l.added}`).join(', ')}`,
      );
      setOpen(false);
    } catch (e) {
      notifySaveError(e);
    }
  };
  return (
    <>
      <Button
        icon={<PlusOutlined />}
        disabled={values.length === 0}
        onClick={() => setOpen(true)}
        data-testid="observed-add-to-list"
      >
        Add {values.length > 1 ? `${values.length} ` : ''}to {kind.listLabel}
      </Button>
      <Modal
        open={open}
        title={`Add ${values.length} to ${kind.listLabel}s`}
        okText="Add"
        okButtonProps={{ disabled: listIds.length === 0 }}
        onOk={() => void submit()}
        onCancel={() => setOpen(false)}
        destroyOnHidden
      >
        <Typography.Paragraph>
          {values.slice(0, 10).join(', ')}
          {values.length > 10 ? ` and ${values.length - 10} more` : ''}
        </Typography.Paragraph>
        <Select<number[]>
          mode="multiple"
          style={{ width: '100%' }}
          placeholder={`Pick one or more ${kind.listLabel}s`}
          value={listIds}
          onChange={setListIds}
          options={lists.filter((l) => !l.archived).map((l) => ({ value: Number(l.id), label: l.name }))}
          showSearch
          optionFilterProp="label"
          data-testid="observed-list-select"
        />
      </Modal>
    </>
  );
}

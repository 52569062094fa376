import { useState } from 'react';
import { App, Button, Modal, Select, Typography } from 'antd';
import { PlusOutlined } from '@ant-design/icons';
import { api } from '../../api/client.js';
import { setList, useList } from '../../api/lists.js';
import { useAuth } from '../../auth/authContext.js';
import { isEntitled } from '../../auth/guards.js';
import { notifySaveError } from '../../errors/notify.js';
import { type ObservedKind } from './observedKinds.js';

/** Append values seen in traffic to one of the tenant's lists (the list's own rules check each value). */
export async function addToList(kind: ObservedKind, listId: number, values: readonly string[]): Promise<number> {
  const path = `/api/demand/${kind.listKind}/${listId}`;
  const list = await api.get<{ name: string; status: number; items: string[] }>(path);
  const items = [...new Set([...list.items, ...values])];
  await api.put(path, { name: list.name, status: list.status, items });
  return items.length - list.items.length;
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
  const [listId, setListId] = useState<number | null>(null);
  const submit = async () => {
    if (listId === null) return;
    try {
      const added = await addToList(kind, listId, values);
      setList(kind.listName, null);
      void message.success(added === 0 ? 'Already in the list' : `Added ${added} to the ${kind.listLabel}`);
      setOpen(false);
    } catch (e) {
      notifySaveError(e);
    }
  };
  return (
    <>
      <Button icon={<PlusOutlined />} disabled={values.length === 0} onClick={() => setOpen(true)} data-testid="observed-add-to-list">
        Add {values.length > 1 ? `${values.length} ` : ''}to {kind.listLabel}
      </Button>
      <Modal open={open} title={`Add to a ${kind.listLabel}`} okText="Add" okButtonProps={{ disabled: listId === null }} onOk={() => void submit()} onCancel={() => setOpen(false)} destroyOnHidden>
        <Typography.Paragraph>{values.slice(0, 10).join(', ')}{values.length > 10 ? ` and ${values.length - 10} more` : ''}</Typography.Paragraph>
        <Select<number> style={{ width: '100%' }} placeholder={`Pick a ${kind.listLabel}`} value={listId ?? undefined} onChange={setListId} options={lists.map((l) => ({ value: Number(l.id), label: l.name }))} showSearch optionFilterProp="label" data-testid="observed-list-select" />
      </Modal>
    </>
  );
}

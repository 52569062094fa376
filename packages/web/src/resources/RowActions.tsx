import {
  CopyOutlined,
  DeleteOutlined,
  EditOutlined,
  EllipsisOutlined,
  EyeOutlined,
  InboxOutlined,
  UndoOutlined,
} from '@ant-design/icons';
import { App, Button, type ButtonProps, Dropdown, Tooltip } from 'antd';
import { type CSSProperties, type ReactElement, type ReactNode, cloneElement } from 'react';
import { type ResourceDef } from '@adplane/shared';
import { notifyLoadError, notifySaveError } from '../errors/notify.js';
import { inSentence } from './labels.js';
import { type ResourceApi, type ResourceRow } from './resourceApi.js';

/** The delete confirmation: deleting is permanent, and archiving is the way to keep a row out of sight. */
const deleteWarning = (label: string) =>
  `Deleting is permanent and cannot be undone: the ${inSentence(label)} is gone and its name disappears from reports. To keep its history, archive it instead.`;

/** A disabled button gets no hover events, so the reason it is greyed sits on a wrapper around it. */
export function Locked({ reason, children }: { reason: string; children: ReactElement<{ style?: CSSProperties }> }) {
  return (
    <Tooltip title={reason}>
      <span style={{ display: 'inline-block', cursor: 'not-allowed' }} data-locked={reason}>
        {cloneElement(children, { style: { ...children.props.style, pointerEvents: 'none' } })}
      </span>
    </Tooltip>
  );
}

/** Run a row command, say it worked and reload; or show the server's reason. */
export function useRowCommands(def: ResourceDef, api: ResourceApi, reload: () => void) {
  const { message, modal } = App.useApp();
  const act = async (what: string, run: () => Promise<unknown>) => {
    try {
      await run();
      message.success(what);
      reload();
    } catch (error) {
      notifySaveError(error);
    }
  };

  /** Archiving or deleting a row in use is refused: say which rows use it before asking the server. */
  const showUsageThen = async (row: ResourceRow, verb: 'archive' | 'delete') => {
    try {
      const used = (await api.usage(row.id)).filter((u) => verb === 'delete' || !u.archived);
      if (used.length === 0) return true;
      modal.warning({
        title: `${def.label} '${row.name}' is in use`,
        content: (
          <div>
            <p>Remove it from these first:</p>
            <ul>
              {used.slice(0, 10).map((u) => (
                <li key={`${u.kind}-${u.id}`}>
                  {u.label} '{u.name}' ({u.field}){u.archived ? ' (archived)' : ''}
                </li>
              ))}
            </ul>
          </div>
        ),
      });
      return false;
    } catch (error) {
      notifyLoadError(error);
      return false;
    }
  };

  const confirmDelete = (row: ResourceRow) =>
    modal.confirm({
      title: `Delete ${inSentence(def.label)} '${row.name}'?`,
      content: deleteWarning(def.label),
      okText: 'Delete',
      okButtonProps: { danger: true, 'data-testid': 'confirm-delete' } as ButtonProps,
      cancelText: 'Cancel',
      onOk: () =>
        showUsageThen(row, 'delete').then((ok) => (ok ? act('Deleted', () => api.remove(row.id)) : undefined)),
    });

  return { act, showUsageThen, confirmDelete };
}

export interface RowActionsProps {
  api: ResourceApi;
  row: ResourceRow;
  canWrite: boolean;
  canDuplicate: boolean;
  locked: { archive?: string; delete?: string };
  extra?: ReactNode;
  onOpen: () => void;
  commands: ReturnType<typeof useRowCommands>;
}

/**
 * A row's actions, each with its name on hover: the kind's own (copy a tag, test it, its funnel),
 * then edit (view when read-only); the "More" menu holds archive or restore (usage checked first),
 * duplicate and delete, which cannot be undone and asks first. Two icons besides the kind's own keep
 * the actions column narrow (columnWidths.ts); a locked action stays in the menu, greyed, with why.
 */
export function RowActions({ api, row, canWrite, canDuplicate, locked, extra, onOpen, commands }: RowActionsProps) {
  const { act, showUsageThen, confirmDelete } = commands;
  const editable = canWrite && !row.archived;
  const verb = row.archived ? 'restore' : 'archive';
  const more = [verb, ...(canDuplicate ? ['duplicate'] : []), 'delete'].join(', ');
  return (
    <div className="row-actions" onClick={(e) => e.stopPropagation()}>
      {extra}
      <Tooltip title={editable ? 'Edit' : 'View'}>
        <Button
          type="text"
          size="small"
          icon={editable ? <EditOutlined /> : <EyeOutlined />}
          onClick={onOpen}
          aria-label={editable ? 'edit' : 'view'}
          data-testid={`row-edit-${row.id}`}
        />
      </Tooltip>
      {canWrite && (
        <Dropdown
          trigger={['click']}
          menu={{
            items: [
              {
                key: verb,
                disabled: Boolean(locked.archive),
                icon: row.archived ? <UndoOutlined /> : <InboxOutlined />,
                label: (
                  <span data-testid={`row-${verb}-${row.id}`} data-locked={locked.archive}>
                    {locked.archive
                      ? `${row.archived ? 'Restore' : 'Archive'}: ${locked.archive}`
                      : row.archived
                        ? 'Restore'
                        : 'Archive (keeps its history in reports)'}
                  </span>
                ),
              },
              ...(canDuplicate
                ? [
                    {
                      key: 'duplicate',
                      icon: <CopyOutlined />,
                      label: <span data-testid={`row-duplicate-${row.id}`}>Duplicate (starts paused)</span>,
                    },
                  ]
                : []),
              { type: 'divider' as const },
              {
                key: 'delete',
                danger: !locked.delete,
                disabled: Boolean(locked.delete),
                icon: <DeleteOutlined />,
                label: (
                  <span data-testid={`row-delete-${row.id}`} data-locked={locked.delete}>
                    {locked.delete ? `Delete: ${locked.delete}` : 'Delete…'}
                  </span>
                ),
              },
            ],
            onClick: ({ key }) => {
              if (key === 'archive')
                void showUsageThen(row, 'archive').then((ok) =>
                  ok ? act('Archived', () => api.archive(row.id)) : undefined,
                );
              if (key === 'restore') void act('Restored', () => api.restore(row.id));
              if (key === 'duplicate') void act('Duplicated', () => api.duplicate(row.id));
              if (key === 'delete') confirmDelete(row);
            },
          }}
        >
          <Tooltip title={`More: ${more}`}>
            <Button
              type="text"
              size="small"
              icon={<EllipsisOutlined />}
              aria-label="more actions"
              data-testid={`row-more-${row.id}`}
            />
          </Tooltip>
        </Dropdown>
      )}
    </div>
  );
}

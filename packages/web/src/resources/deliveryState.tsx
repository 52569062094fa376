import { Alert, App, Button, Form, Modal, Tag, Tooltip } from 'antd';
import { type ReactNode, useEffect, useRef, useState } from 'react';
import {
  type DeliveryReason,
  type DeliveryState,
  type DeliveryStateKind,
  type DeliveryStatesAnswer,
  hasDeliveryState,
  RESOURCES,
  type ResourceDef,
  untilServing,
} from '@adplane/shared';
import { api } from '../api/client.js';
import { notifySaveError } from '../errors/notify.js';
import { RefSelect, StatusTag } from './fields.js';
import { type ResourceRow, resourceApi } from './resourceApi.js';

/**
 * Whether a campaign, creative, demand tag, channel or deal serves, and why not (GET
 * /api/deliveryStates, the ad server's own reasons): the list's Status column, the drawer's reasons
 * and the message after a save.
 */
const statesOf = (kind: DeliveryStateKind, ids: readonly number[]) =>
  api.get<DeliveryStatesAnswer>(`/api/deliveryStates?${new URLSearchParams({ kind, ids: ids.join(',') })}`, {
    silent: true,
    ignoreForbidden: true,
  });

/**
 * The delivery states of the rows on screen, asked once the rows have loaded and again each time
 * they are loaded (a save, a bulk action). Null while unknown (or for a kind without them); a failure
 * leaves them unknown and the column shows the row's own status.
 */
export function useDeliveryStates(
  kind: string,
  rows: readonly ResourceRow[],
): ReadonlyMap<number, DeliveryState> | null {
  const [states, setStates] = useState<ReadonlyMap<number, DeliveryState> | null>(null);
  const seq = useRef(0);
  useEffect(() => {
    const mine = ++seq.current;
    if (!hasDeliveryState(kind) || !rows.length) {
      setStates(null);
      return;
    }
    statesOf(
      kind,
      rows.map((r) => r.id),
    )
      .then((answer) => {
        if (mine === seq.current) setStates(new Map(answer.states.map((s) => [s.id, s])));
      })
      .catch((error: unknown) => {
        console.error('Loading the delivery states failed', error);
        if (mine === seq.current) setStates(null);
      });
  }, [kind, rows]);
  return states;
}

/** The reasons as lines. */
function ReasonList({ reasons }: { reasons: readonly DeliveryReason[] }) {
  return (
    <ul className="delivery-reasons">
      {reasons.map((r) => (
        <li key={`${r.code}:${r.message}`} data-code={r.code}>
          {r.message}
        </li>
      ))}
    </ul>
  );
}

/**
 * A row's Status cell: Paused or Archived as set; an active row shows "Active" only when the ad server
 * serves it, else "Not serving" in the warning colour with every reason on hover. `state` undefined:
 * not known (yet), the row's own status.
 */
export function DeliveryStatusTag({
  row,
  state,
}: {
  row: Pick<ResourceRow, 'id' | 'status' | 'archived'>;
  state?: DeliveryState;
}) {
  if (row.archived || row.status !== 1 || !state) return <StatusTag status={row.status} archived={row.archived} />;
  if (state.serving)
    return (
      <Tag color="green" data-testid={`row-status-${row.id}`} data-serving="yes">
        Active
      </Tag>
    );
  return (
    <Tooltip title={<ReasonList reasons={state.reasons} />}>
      <Tag color="warning" data-testid={`row-status-${row.id}`} data-serving="no">
        Not serving
      </Tag>
    </Tooltip>
  );
}

/**
 * The drawer's section: whether the row serves, and every reason it does not; `detail`, what the
 * kind adds under them from the state (a supply deal's delivery against its caps).
 */
export function DeliveryStatePanel({
  kind,
  id,
  stamp,
  detail,
}: {
  kind: string;
  id: number;
  stamp?: string;
  detail?: (state: DeliveryState) => ReactNode;
}) {
  const [state, setState] = useState<DeliveryState | null>(null);
  useEffect(() => {
    if (!hasDeliveryState(kind)) return;
    let active = true;
    statesOf(kind, [id])
      .then((answer) => active && setState(answer.states[0] ?? null))
      .catch((error: unknown) => console.error('Loading the delivery state failed', error));
    return () => {
      active = false;
    };
  }, [kind, id, stamp]);
  if (!state) return null;
  const more = detail?.(state);
  if (state.serving)
    return (
      <Alert
        type="success"
        showIcon
        title="Serving"
        description={more}
        className="delivery-state"
        data-testid="delivery-state"
      />
    );
  return (
    <Alert
      type="warning"
      showIcon
      className="delivery-state"
      data-testid="delivery-state"
      title="Not serving"
      description={
        <>
          <ReasonList reasons={state.reasons} />
          {more}
        </>
      }
    />
  );
}

/** "Saved", or "Saved; it will not serve until ..." with the reasons, for a row that is active but will not serve. */
export function savedText(state: DeliveryState | null): string {
  const until = state ? untilServing(state) : null;
  return until ? `Saved; it will not serve until ${until}` : 'Saved';
}

/**
 * The list page's message after a save: "Saved", or when the row is active and will not serve, why
 * (the ad server's reasons, asked at once); a demand tag no channel lists gets a button that adds
 * it to channels. `element` holds that dialog: the page renders it.
 */
export function useSavedNotice(
  def: ResourceDef,
  onChanged: () => void,
): { notify: (row: ResourceRow) => void; element: ReactNode } {
  const { message } = App.useApp();
  const [adding, setAdding] = useState<ResourceRow | null>(null);
  const notify = (row: ResourceRow) => {
    if (!hasDeliveryState(def.kind) || row.status !== 1 || row.archived) {
      void message.success('Saved');
      return;
    }
    statesOf(def.kind, [row.id])
      .then(({ states: [state] }) => {
        if (!state || state.serving) {
          void message.success('Saved');
          return;
        }
        const onNoChannel = def.kind === 'tags' && state.reasons.some((r) => r.code === 'no_channel');
        void message.warning({
          duration: 10,
          content: (
            <span data-testid="saved-not-serving">
              {savedText(state)}
              {onNoChannel && (
                <Button size="small" type="link" onClick={() => setAdding(row)} data-testid="saved-add-to-channels">
                  Add it to channels
                </Button>
              )}
            </span>
          ),
        });
      })
      .catch(() => void message.success('Saved'));
  };
  const element = adding && (
    <AddTagToChannels
      tag={adding}
      onClose={(changed) => {
        setAdding(null);
        if (changed) onChanged();
      }}
    />
  );
  return { notify, element };
}

const channels = resourceApi(RESOURCES.channels);
const OK_TEST_ID = { 'data-testid': 'add-to-channels-ok' };

/**
 * Adds a demand tag to channels of its account: each channel is saved whole with the tag appended
 * to its demand (priority 1), as its drawer would save it, so the server checks it as any save.
 */
function AddTagToChannels({ tag, onClose }: { tag: ResourceRow; onClose: (changed: boolean) => void }) {
  const { message } = App.useApp();
  const [ids, setIds] = useState<number[]>([]);
  const [busy, setBusy] = useState(false);
  const add = async () => {
    setBusy(true);
    try {
      for (const id of ids) {
        const channel = await channels.get(id);
        const demand = (channel.demand as { tagId: number; priority: number }[] | undefined) ?? [];
        if (demand.some((d) => d.tagId === tag.id)) continue;
        await channels.update(id, { ...channel, demand: [...demand, { tagId: tag.id, priority: 1 }] });
      }
      void message.success(`Added ${tag.name} to ${ids.length} channel${ids.length === 1 ? '' : 's'}`);
      onClose(true);
    } catch (error) {
      notifySaveError(error);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal
      open
      title={`Add ${tag.name} to channels`}
      okText="Add"
      okButtonProps={{ disabled: !ids.length, ...OK_TEST_ID }}
      confirmLoading={busy}
      onOk={() => void add()}
      onCancel={() => onClose(false)}
    >
      <Form layout="vertical" data-testid="add-to-channels">
        <Form.Item label="Channels that will call it" htmlFor="add-to-channels-select">
          <RefSelect
            id="add-to-channels-select"
            kind="channels"
            multiple
            tenantId={tag.tenantId ?? null}
            value={ids}
            onChange={(v) => setIds(Array.isArray(v) ? v : [])}
            placeholder="Choose channels"
          />
        </Form.Item>
      </Form>
    </Modal>
  );
}

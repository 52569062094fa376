import { Alert, Form, type FormInstance, Radio } from 'antd';
import { type ReactNode, useMemo } from 'react';
import { type ChannelScope } from '@adplane/shared';
import { useList } from '../../api/lists.js';
import { RefSelect } from '../../resources/fields.js';

const CHANNEL_SCOPE_OPTIONS: { value: ChannelScope; label: string }[] = [
  { value: 'all', label: 'All my channels' },
  { value: 'include', label: 'Only these' },
  { value: 'exclude', label: 'All but these' },
];

/** What each choice means, under it. */
const SCOPE_HINTS: Record<ChannelScope, string> = {
  all: 'Every channel of the account, those added later too',
  include: "Only the channels picked (not suppliers' bid requests either)",
  exclude: 'Every channel of the account but those picked',
};

/**
 * Where the campaign runs among the account's channels: all of them, only those picked, or all but
 * those (the campaign's `channelScope` and `channelIds`); the picker is the one supply deals use.
 * Channels picked that are all paused or archived leave an "Only these" campaign running nowhere:
 * the form says so while they are picked.
 */
export function ChannelAssignmentFields({
  form,
  label,
}: {
  form: FormInstance;
  label: (field: string, text: ReactNode) => ReactNode;
}) {
  const scope = Form.useWatch('channelScope', form) as ChannelScope | undefined;
  const picked = Form.useWatch('channelIds', form) as number[] | undefined;
  const { items } = useList('channels');
  const noneServes = useMemo(() => {
    if (scope !== 'include' || !picked?.length) return false;
    const byId = new Map(items.map((i) => [Number(i.id), i]));
    return picked.every((id) => {
      const channel = byId.get(id);
      return !!channel && (channel.archived === true || channel.status === 0);
    });
  }, [scope, picked, items]);
  return (
    <>
      <Form.Item
        name="channelScope"
        label={label('channelScope', 'Channels')}
        extra={scope ? SCOPE_HINTS[scope] : undefined}
        rules={[{ required: true, message: 'Choose where the campaign runs' }]}
      >
        <Radio.Group optionType="button" options={CHANNEL_SCOPE_OPTIONS} data-testid="campaign-channel-scope" />
      </Form.Item>
      {(scope === 'include' || scope === 'exclude') && (
        <Form.Item
          name="channelIds"
          label={label('channelIds', scope === 'include' ? 'Runs only on' : 'Never runs on')}
          // an "Only these" with no channel is refused by the campaign's schema, in place, as the server refuses it
        >
          <RefSelect kind="channels" multiple placeholder="Pick channels" />
        </Form.Item>
      )}
      {noneServes && (
        <Alert
          type="warning"
          showIcon
          data-testid="campaign-channels-idle"
          style={{ marginBottom: 16 }}
          title="None of these channels is active: the campaign runs nowhere until one of them is (or another is picked)"
        />
      )}
    </>
  );
}

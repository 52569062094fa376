import { Alert, Form } from 'antd';
import { useState } from 'react';
import { useUser } from '../../auth/authContext.js';
import { TagPreview } from '../../components/TagPreview.js';
import { channelTagPreview, type TagVariant } from '../../components/tagVariants.js';
import { type ResourceFormProps } from '../../resources/ResourceDrawer.js';
import { TagTestDrawer } from '../tagTest/TagTestDrawer.js';

/** What the form changed that the saved channel's tag does not show yet. */
const TAG_FIELDS = [
  ['integration', 'integration'],
  ['environment', 'environment'],
  ['vastVersion', 'VAST version'],
] as const;

/**
 * The saved channel's tag to paste, in its variants (TagPreview), with "Test this tag" run in the
 * variant's environment. Edits to the fields the tag depends on show once saved.
 */
export function ChannelTagBox({ row }: { row: NonNullable<ResourceFormProps['row']> }) {
  const user = useUser();
  const form = Form.useFormInstance();
  const values = Form.useWatch([], form) as Record<string, unknown> | undefined;
  const [testing, setTesting] = useState<TagVariant | null>(null);
  const model = channelTagPreview(row, user);
  if (!model) return null;
  const changed = TAG_FIELDS.filter(([field]) => values?.[field] !== undefined && values[field] !== row[field]).map(
    ([, label]) => label,
  );
  const canTest = user.type === 'demand' || user.type === 'admin';
  return (
    <>
      {changed.length > 0 && (
        <Alert
          type="info"
          showIcon
          style={{ marginBottom: 8 }}
          title={`Save to get the tag with the new ${changed.join(' and ')}; this is the tag of the saved channel.`}
        />
      )}
      <TagPreview
        model={model}
        testId="channel-tag"
        copiedMessage="Copied: the tag is in your clipboard"
        onTest={canTest && row.integration !== 'PreBid' ? setTesting : undefined}
      />
      {testing && (
        <TagTestDrawer
          subject={{
            kind: 'channel',
            id: Number(row.id),
            name: String(row.name),
            environment: testing.environment ?? String(row.environment ?? ''),
          }}
          open
          onClose={() => setTesting(null)}
        />
      )}
    </>
  );
}

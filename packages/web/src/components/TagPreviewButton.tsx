import { CodeOutlined } from '@ant-design/icons';
import { Button, Popover, Tooltip } from 'antd';
import { useState } from 'react';
import { TagPreview, type TagPreviewProps } from './TagPreview.js';

/**
 * A list row's way to its tag: a named button that opens the tag in a preview (variants, the whole
 * text, Copy), never a blind copy of something the user cannot see.
 */
export function TagPreviewButton({
  label,
  heading,
  buttonTestId,
  ...preview
}: TagPreviewProps & { label: string; heading?: string; buttonTestId: string }) {
  const [open, setOpen] = useState(false);
  return (
    <Popover
      trigger="click"
      open={open}
      onOpenChange={setOpen}
      placement="leftTop"
      title={heading ?? label}
      destroyOnHidden
      content={
        <div className="tag-preview-popover" onClick={(e) => e.stopPropagation()}>
          <TagPreview bare {...preview} />
        </div>
      }
    >
      <Tooltip title={open ? undefined : `${label}: see it and copy it`}>
        <Button type="text" size="small" icon={<CodeOutlined />} aria-label={label} data-testid={buttonTestId} />
      </Tooltip>
    </Popover>
  );
}

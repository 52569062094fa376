import { ExperimentOutlined } from '@ant-design/icons';
import { Button, ConfigProvider, Segmented, Select, Space, Switch, Typography } from 'antd';
import { useState } from 'react';
import { CopyButton } from './CopyButton.js';
import { pickVariant, type TagPreviewModel, type TagVariant } from './tagVariants.js';
import { UrlText } from './UrlText.js';
import './tagPreview.css';

export interface TagPreviewProps {
  model: TagPreviewModel;
  /** Test ids: `<testId>` on the code, `<testId>-copy`, `-variant`, `-example`, `-test` on the controls. */
  testId: string;
  /** What the toast says once copied. */
  copiedMessage?: string;
  /** "Test this tag" with the shown variant (its environment); no link without it. */
  onTest?: (variant: TagVariant) => void;
  /** Hide the model's title (when the section heading already says it). */
  bare?: boolean;
}

/**
 * A tag or endpoint to paste, shown whole: a read-only code box (monospace, URLs wrapping between
 * their parts, UrlText), the variants
 * to choose from (environments, endpoint or test call), example values in place of the macros on
 * request, and a labelled Copy button that says when it worked. It stays usable in a read-only
 * drawer: copying changes nothing.
 */
export function TagPreview({
  model: asSetUp,
  testId,
  copiedMessage = 'Copied: it is in your clipboard',
  onTest,
  bare,
}: TagPreviewProps) {
  const [version, setVersion] = useState<string | null>(null);
  const versions = asSetUp.vastVersions;
  const model = versions && version && version !== versions.current ? versions.inVersion(version) : asSetUp;
  const [key, setKey] = useState<string | null>(null);
  const [example, setExample] = useState(false);
  const variant = pickVariant(model, key);
  const showExample = example && variant.example !== undefined;
  const text = showExample ? (variant.example ?? '') : variant.text;

  return (
    <ConfigProvider componentDisabled={false}>
      <div className="tag-preview" data-testid={`${testId}-preview`} data-variant={variant.key}>
        <div className="tag-preview-bar">
          <Space size={8} wrap>
            {!bare && <Typography.Text strong>{model.title}</Typography.Text>}
            {model.variants.length > 1 && (
              <Segmented
                size="small"
                value={variant.key}
                options={model.variants.map((v) => ({
                  value: v.key,
                  label: <span data-testid={`${testId}-variant-${v.key}`}>{v.label}</span>,
                }))}
                onChange={(value) => setKey(String(value))}
                data-testid={`${testId}-variant`}
              />
            )}
            {versions && (
              <Select
                size="small"
                value={version ?? versions.current}
                onChange={setVersion}
                popupMatchSelectWidth={false}
                options={versions.options.map((v) => ({
                  value: v,
                  label: v === versions.current ? `VAST ${v} (channel)` : `VAST ${v}`,
                }))}
                aria-label="VAST version"
                data-testid={`${testId}-version`}
              />
            )}
            {variant.example !== undefined && (
              <label className="tag-preview-example">
                <Switch size="small" checked={example} onChange={setExample} data-testid={`${testId}-example`} />{' '}
                Example values
              </label>
            )}
          </Space>
          <Space size={4}>
            {onTest && (
              <Button
                type="link"
                size="small"
                icon={<ExperimentOutlined />}
                onClick={() => onTest(variant)}
                data-testid={`${testId}-test`}
              >
                Test this tag
              </Button>
            )}
            <CopyButton text={text} copiedMessage={copiedMessage} testId={`${testId}-copy`} />
          </Space>
        </div>
        <pre className="tag-preview-code" data-testid={testId} aria-label={`${model.title}: ${variant.label}`}>
          <UrlText text={text} />
        </pre>
        <Typography.Text type="secondary" className="tag-preview-hint">
          {showExample
            ? 'What such a player sends, with example values: copy the version with macros for your player.'
            : variant.hint}
          {model.note ? ` ${model.note}` : ''}
        </Typography.Text>
      </div>
    </ConfigProvider>
  );
}

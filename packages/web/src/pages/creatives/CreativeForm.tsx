import { Col, Form, Input, InputNumber, Radio, Row, Select, TreeSelect } from 'antd';
import { APPROVAL, AD_FORMAT_OPTIONS, IAB_CATEGORIES, iabCategoryLabel } from '@adplane/shared';
import { type ResourceFormProps } from '../../resources/ResourceDrawer.js';
import { RefSelect } from '../../resources/fields.js';
import { useHelpLabel } from '../../resources/fields.js';
import { NameField, StatusField, trimmed } from '../../resources/formParts.js';
import { Section } from '../dsp/formParts.js';
import { CreativePreview } from './CreativePreview.js';
import { type CreativeValues, creativePreview } from './creativePreview.js';
import { MediaFilesField } from './MediaFilesField.js';
import '../dsp/dsp.css';

export const APPROVAL_LABELS: Record<(typeof APPROVAL)[number], { label: string; color: string }> = {
  pending: { label: 'Pending', color: 'gold' },
  approved: { label: 'Approved', color: 'green' },
  rejected: { label: 'Rejected', color: 'red' },
};

const APPROVAL_OPTIONS = APPROVAL.map((a) => ({ value: a, label: APPROVAL_LABELS[a].label }));
const FORMAT_OPTIONS = AD_FORMAT_OPTIONS.map((o) => ({ value: o.id, label: o.name }));

/** IAB content categories as a two-level tree; the picked one reads `Tier 1 > Tier 2`, searchable by name or code. */
const IAB_TREE = IAB_CATEGORIES.map((tier1) => ({
  value: tier1.id,
  title: `${tier1.name} (${tier1.id})`,
  label: `${iabCategoryLabel(tier1.id)} (${tier1.id})`,
  children: tier1.children.map((c) => ({
    value: c.id,
    title: `${c.name} (${c.id})`,
    label: `${iabCategoryLabel(c.id)} (${c.id})`,
  })),
}));

/** The live preview: what the fields say now, before saving. */
function PreviewSection() {
  const form = Form.useFormInstance();
  const values: CreativeValues = {
    format: Form.useWatch('format', form),
    videoSource: Form.useWatch('videoSource', form),
    mediaFiles: Form.useWatch('mediaFiles', form),
    vastUrl: Form.useWatch('vastUrl', form),
    displayType: Form.useWatch('displayType', form),
    imageUrl: Form.useWatch('imageUrl', form),
    html: Form.useWatch('html', form),
    width: Form.useWatch('width', form),
    height: Form.useWatch('height', form),
  };
  return (
    <Section title="Preview">
      <div className="dsp-preview" data-testid="creative-preview-section">
        <CreativePreview model={creativePreview(values)} />
      </div>
    </Section>
  );
}

export function CreativeForm({ form, readOnly }: ResourceFormProps) {
  const label = useHelpLabel('creatives');
  const format = Form.useWatch('format', form);
  const videoSource = Form.useWatch('videoSource', form);
  const displayType = Form.useWatch('displayType', form);
  return (
    <div className="dsp-form">
      <Section title="Basics">
        <Row gutter={16}>
          <Col span={16}>
            <NameField placeholder="e.g. Blue Fin Foods - Wild Salmon 30s (CTV)" />
          </Col>
          <Col span={8}>
            <StatusField />
          </Col>
        </Row>
        <Row gutter={16}>
          <Col span={12}>
            <Form.Item name="advertiserId" label={label('advertiserId', 'Advertiser')}>
              <RefSelect kind="advs" placeholder="None" />
            </Form.Item>
          </Col>
          <Col span={12}>
            <Form.Item
              name="approval"
              label={label('approval', 'Approval')}
              extra="Only approved creatives should go live"
            >
              <Select options={APPROVAL_OPTIONS} aria-label="Approval" />
            </Form.Item>
          </Col>
        </Row>
      </Section>

      <Section title="Ad">
        <Row gutter={16}>
          <Col span={8}>
            <Form.Item name="format" label={label('format', 'Format')}>
              <Radio.Group optionType="button" options={FORMAT_OPTIONS} />
            </Form.Item>
          </Col>
          <Col span={16}>
            {format === 'display' ? (
              <Form.Item name="displayType" label={label('displayType', 'Display type')}>
                <Radio.Group
                  optionType="button"
                  options={[
                    { value: 'image', label: 'Image' },
                    { value: 'html', label: 'HTML' },
                  ]}
                />
              </Form.Item>
            ) : (
              <Form.Item name="videoSource" label={label('videoSource', 'Video source')}>
                <Radio.Group
                  optionType="button"
                  options={[
                    { value: 'media', label: 'Media files' },
                    { value: 'vast', label: 'Third-party VAST' },
                  ]}
                />
              </Form.Item>
            )}
          </Col>
        </Row>

        {format !== 'display' && videoSource !== 'vast' && (
          <>
            <Form.Item
              label={label('mediaFiles', 'Media files')}
              required
              extra="One row per rendition; players pick the one that suits them"
            >
              <MediaFilesField form={form} readOnly={readOnly} />
            </Form.Item>
            <Row gutter={16}>
              <Col span={8}>
                <Form.Item
                  name="skipAfter"
                  label={label('skipAfter', 'Skippable after')}
                  extra="0: not skippable. Players offer Skip after this many seconds"
                >
                  <InputNumber<number>
                    precision={0}
                    suffix="s"
                    style={{ width: '100%' }}
                    aria-label="Skippable after"
                    data-testid="creative-skip-after"
                  />
                </Form.Item>
              </Col>
            </Row>
          </>
        )}
        {format !== 'display' && videoSource === 'vast' && (
          <Row gutter={16}>
            <Col span={18}>
              <Form.Item name="vastUrl" normalize={trimmed} label={label('vastUrl', 'VAST URL')} required>
                <Input placeholder="https://vast.adserver.example/v4/creative/88213?cb={{cachebuster}}" />
              </Form.Item>
            </Col>
            <Col span={6}>
              <Form.Item name="duration" label={label('duration', 'Duration')}>
                <InputNumber<number> precision={0} suffix="s" style={{ width: '100%' }} />
              </Form.Item>
            </Col>
          </Row>
        )}
        {format === 'display' && displayType !== 'html' && (
          <Form.Item name="imageUrl" normalize={trimmed} label={label('imageUrl', 'Image URL')} required>
            <Input placeholder="https://cdn.example.com/banners/spring-300x250.jpg" />
          </Form.Item>
        )}
        {format === 'display' && displayType === 'html' && (
          <Form.Item name="html" label={label('html', 'HTML')} required>
            <Input.TextArea
              rows={6}
              className="dsp-mono"
              placeholder={'<a href="https://example.com" target="_blank">...</a>'}
            />
          </Form.Item>
        )}
        {format === 'display' && (
          <Row gutter={16}>
            <Col span={6}>
              <Form.Item name="width" label={label('width', 'Width')} required>
                <InputNumber<number> precision={0} suffix="px" style={{ width: '100%' }} />
              </Form.Item>
            </Col>
            <Col span={6}>
              <Form.Item name="height" label={label('height', 'Height')} required>
                <InputNumber<number> precision={0} suffix="px" style={{ width: '100%' }} />
              </Form.Item>
            </Col>
          </Row>
        )}
      </Section>

      <PreviewSection />

      <Section title="Landing & brand safety">
        <Row gutter={16}>
          <Col span={14}>
            <Form.Item name="clickUrl" normalize={trimmed} label={label('clickUrl', 'Click-through URL')}>
              <Input placeholder="https://advertiser.example/offer" />
            </Form.Item>
          </Col>
          <Col span={10}>
            <Form.Item
              name="adomain"
              label={label('adomain', 'Advertiser domains')}
              extra="Sent as adomain in bids; type a domain and press Enter"
            >
              <Select
                mode="tags"
                open={false}
                suffixIcon={null}
                tokenSeparators={[',', ' ']}
                placeholder="advertiser.example"
                aria-label="Advertiser domains"
                data-testid="creative-adomain"
              />
            </Form.Item>
          </Col>
        </Row>
        <Form.Item
          name="iabCategories"
          label={label('iabCategories', 'IAB categories')}
          extra="Sent as cat in bids"
          normalize={(v: unknown) => (Array.isArray(v) ? v : [])}
        >
          <TreeSelect
            multiple
            treeData={IAB_TREE}
            treeNodeLabelProp="label"
            showSearch={{ treeNodeFilterProp: 'label' }}
            allowClear
            placeholder="None"
            popupMatchSelectWidth
            listHeight={320}
            aria-label="IAB categories"
          />
        </Form.Item>
      </Section>
    </div>
  );
}

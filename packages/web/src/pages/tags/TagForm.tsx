import { Col, Form, Input, InputNumber, Radio, Row, Select, Tooltip, Typography } from 'antd';
import { type TextAreaRef } from 'antd/es/input/TextArea';
import { useEffect, useRef } from 'react';
import { INTEGRATION_OPTIONS, partnerById, partnerSetuidUrl } from '@adplane/shared';
import { CopyValue } from '../../resources/cells.js';
import { useUser } from '../../auth/authContext.js';
import { MoneyInput, RefSelect, useHelpLabel } from '../../resources/fields.js';
import { LimitInput, PriceFields } from '../../resources/unitFields.js';
import { type ResourceFormProps } from '../../resources/ResourceDrawer.js';
import { PartnerParamsFields } from './PartnerParamsFields.js';
import { PARTNER_OPTIONS, missingRequired, partnerParamsToBody } from './partnerParams.js';
import './tags.css';
import { NameStatusRow, SectionTitle, trimmed } from '../../resources/formParts.js';

const DEFAULT_TAG_REVSHARE = 80;
const HTTP_URL = /^https?:\/\/\S+$/i;

/** The VAST URL with one button per macro of the tenant: a click puts the macro at the cursor. */
function VastUrlField({ readOnly }: { readOnly: boolean }) {
  const user = useUser();
  const form = Form.useFormInstance();
  const label = useHelpLabel('tags');
  const ref = useRef<TextAreaRef>(null);

  const insert = (macro: string) => {
    const el = ref.current?.resizableTextArea?.textArea;
    const current = String(form.getFieldValue('vastUrl') ?? '');
    const start = el ? el.selectionStart : current.length;
    const end = el ? el.selectionEnd : current.length;
    const next = current.slice(0, start) + macro + current.slice(end);
    form.setFieldValue('vastUrl', next);
    void form.validateFields(['vastUrl']).catch(() => undefined);
    requestAnimationFrame(() => {
      if (!el) return;
      el.focus();
      el.setSelectionRange(start + macro.length, start + macro.length);
    });
  };

  return (
    <>
      <Form.Item
        name="vastUrl"
        normalize={trimmed}
        label={label('vastUrl', 'VAST URL')}
        rules={[
          { required: true, whitespace: true, message: 'Enter the VAST URL of the demand partner' },
          { pattern: HTTP_URL, message: 'Must be an http(s) URL without spaces' },
          { max: 4096 },
        ]}
        extra="The demand partner's VAST tag. Put the macros where the partner expects each value."
      >
        <Input.TextArea
          ref={ref}
          autoSize={{ minRows: 3, maxRows: 8 }}
          placeholder="https://vast.partner.example/vast?w={{width}}&h={{height}}&cb={{cachebuster}}"
          data-testid="tag-vast-url"
        />
      </Form.Item>
      {!readOnly && user.vastParams.length > 0 && (
        <div className="macro-helper" data-testid="macro-helper">
          <Typography.Text type="secondary" className="macro-helper-title">
            Insert a macro:
          </Typography.Text>
          {user.vastParams.map((m) => (
            <Tooltip key={m.param} title={`${m.description} (parameter ${m.param})`}>
              <button
                type="button"
                className="macro-chip"
                onClick={() => insert(m.macro)}
                data-testid={`macro-${m.param}`}
              >
                {m.macro}
              </button>
            </Tooltip>
          ))}
        </div>
      )}
    </>
  );
}

function PartnerFields() {
  const form = Form.useFormInstance();
  const label = useHelpLabel('tags');
  const partner = Form.useWatch('partner', form) as string | undefined;
  const params: unknown = Form.useWatch('partnerParams', form);
  // The partner's required parameters are checked on save; once that complaint shows, it follows the edits.
  useEffect(() => {
    if (form.getFieldError('partner').length) void form.validateFields(['partner']).catch(() => undefined);
  }, [form, partner, params]);
  return (
    <>
      <Form.Item
        name="partner"
        label={label('partner', 'Partner')}
        validateTrigger={[]}
        rules={[
          { required: true, message: 'Pick the header-bidding partner' },
          ({ getFieldValue }) => ({
            validator: async (_rule, value: string | undefined) => {
              const p = value ? partnerById(value) : undefined;
              if (!p) return;
              let body: Record<string, unknown>;
              try {
                body = partnerParamsToBody(p.params, getFieldValue('partnerParams'));
              } catch {
                return; // The parameter with bad JSON shows its own error.
              }
              const missing = missingRequired(p, body);
              if (missing) throw new Error(missing);
            },
          }),
        ]}
      >
        <Select
          id="tag-partner"
          showSearch={{ optionFilterProp: 'label' }}
          placeholder="Pick a partner"
          options={[...PARTNER_OPTIONS]}
          onChange={() => form.setFieldValue('partnerParams', {})}
          style={{ maxWidth: 320 }}
        />
      </Form.Item>
      <PartnerParamsFields partnerId={partner} />
    </>
  );
}

/** The fields of a demand tag: where the ad server calls, at what price, how much and for whom. */
/**
 * User sync with the RTB partner: its sync URL (where `${REDIRECT}` takes adplane's setuid URL), and,
 * once the tag is saved, that setuid URL to hand a partner that redirects to a fixed address.
 */
function PartnerSyncFields({ tagId }: { tagId: number | undefined }) {
  const user = useUser();
  const label = useHelpLabel('tags');
  return (
    <>
      <Form.Item
        name="userSyncUrl"
        normalize={trimmed}
        label={label('userSyncUrl', 'User sync URL')}
        extra={
          <>
            The partner&apos;s cookie-sync URL, for browsers coming through Prebid.js. Put{' '}
            <Typography.Text code>{'${REDIRECT}'}</Typography.Text> where it takes the address to send the browser back
            to (<Typography.Text code>{'${GDPR}'}</Typography.Text>,{' '}
            <Typography.Text code>{'${GDPR_CONSENT}'}</Typography.Text>,{' '}
            <Typography.Text code>{'${US_PRIVACY}'}</Typography.Text>,{' '}
            <Typography.Text code>{'${GPP}'}</Typography.Text> and{' '}
            <Typography.Text code>{'${GPP_SID}'}</Typography.Text> are filled too). Its id then goes out as buyeruid in
            its bid requests. Empty = no sync.
          </>
        }
      >
        <Input placeholder="https://sync.bidder.example/usersync?redir=${REDIRECT}" data-testid="tag-sync-url" />
      </Form.Item>
      {tagId ? (
        <div className="tag-setuid">
          <Typography.Text type="secondary">
            Where the partner sends the browser back, its id in place of $UID:
          </Typography.Text>{' '}
          <CopyValue value={partnerSetuidUrl(user.config.host, tagId)} testId="tag-setuid-url" />
        </div>
      ) : null}
    </>
  );
}

export function TagForm({ form, readOnly, row }: ResourceFormProps) {
  const label = useHelpLabel('tags');
  const integration = Form.useWatch('integration', form) as string | undefined;

  return (
    <>
      <SectionTitle>Basics</SectionTitle>
      <NameStatusRow placeholder="Partner - inventory - integration" message="Name the tag" testId="tag-name" />

      <Form.Item name="integration" label={label('integration', 'Integration')}>
        <Radio.Group
          optionType="button"
          options={INTEGRATION_OPTIONS.map((o) => ({ value: o.id, label: o.name }))}
          data-testid="tag-integration"
        />
      </Form.Item>
      {integration === 'VAST' && <VastUrlField readOnly={readOnly} />}
      {integration === 'RTB' && (
        <Form.Item
          name="endpoint"
          normalize={trimmed}
          label={label('endpoint', 'OpenRTB endpoint')}
          required
          extra="OpenRTB 2.6 bid requests are posted here."
        >
          <Input placeholder="https://bidder.example/openrtb2/auction" data-testid="tag-endpoint" />
        </Form.Item>
      )}
      {integration === 'RTB' && <PartnerSyncFields tagId={row?.id} />}
      {integration === 'PreBid' && <PartnerFields />}

      <SectionTitle>Pricing</SectionTitle>
      <Row gutter={16}>
        <PriceFields
          name="price"
          label={label}
          typeLabel="Pricing"
          typeOptions={[
            { value: 'cpm', label: 'Fixed CPM' },
            { value: 'revshare', label: 'Revenue share' },
          ]}
          cpmLabel="Price CPM"
          cpmExtra="What the partner pays per 1,000 impressions"
          percentLabel="Revenue share"
          percentExtra="Percent of the price the partner reports"
          defaultPercent={DEFAULT_TAG_REVSHARE}
          testId="tag-price"
        />
        <Col span={8}>
          <Form.Item name="floorCpm" label={label('floorCpm', 'Floor CPM')} extra="Lowest bid accepted">
            <MoneyInput data-testid="tag-floor" />
          </Form.Item>
        </Col>
      </Row>

      <SectionTitle>Delivery</SectionTitle>
      <Row gutter={16}>
        <Col span={8}>
          <Form.Item name="priority" label={label('priority', 'Priority')} required extra="1 is called first">
            <InputNumber precision={0} style={{ width: '100%' }} data-testid="tag-priority" />
          </Form.Item>
        </Col>
        <Col span={8}>
          <Form.Item name="timeoutMs" label={label('timeoutMs', 'Timeout')} required>
            <InputNumber step={50} precision={0} suffix="ms" style={{ width: '100%' }} />
          </Form.Item>
        </Col>
        <Col span={8}>
          <Form.Item name="qpsLimit" label={label('qpsLimit', 'QPS limit')} extra="Empty = unlimited; 0 stops the tag">
            <LimitInput data-testid="tag-qps" />
          </Form.Item>
        </Col>
        <Col span={8}>
          <Form.Item
            name="dailyRequestCap"
            label={label('dailyRequestCap', 'Daily request cap')}
            extra="Empty = unlimited; 0 stops the tag"
          >
            <LimitInput data-testid="tag-daily-requests" />
          </Form.Item>
        </Col>
        <Col span={8}>
          <Form.Item
            name="dailyImpCap"
            label={label('dailyImpCap', 'Daily impression cap')}
            extra="Empty = unlimited; 0 stops the tag"
          >
            <LimitInput data-testid="tag-daily-imps" />
          </Form.Item>
        </Col>
      </Row>

      <SectionTitle>Targeting &amp; advertiser</SectionTitle>
      <Row gutter={16}>
        <Col span={12}>
          <Form.Item name="targetingId" label={label('targetingId', 'Targeting')}>
            <RefSelect kind="targetings" placeholder="None (all traffic)" />
          </Form.Item>
        </Col>
        <Col span={12}>
          <Form.Item
            name="advertiserId"
            label={label('advertiserId', 'Advertiser')}
            extra="The advertiser sees this tag's numbers"
          >
            <RefSelect kind="advs" placeholder="None" />
          </Form.Item>
        </Col>
      </Row>
    </>
  );
}

import { Alert, Checkbox, Col, Form, Input, Row, Typography } from 'antd';
import { AD_FORMAT_OPTIONS } from '@adplane/shared';
import { useUser } from '../../auth/authContext.js';
import { type ResourceFormProps } from '../../resources/ResourceDrawer.js';
import { PercentInput, RefSelect } from '../../resources/fields.js';
import { LimitInput } from '../../resources/unitFields.js';
import { TagPreview } from '../../components/TagPreview.js';
import { supplierTagPreview } from '../../components/tagVariants.js';
import { useHelpLabel } from '../../resources/fields.js';
import { NameField, StatusField, trimmed } from '../../resources/formParts.js';
import { Section } from '../dsp/formParts.js';
import { CopyValue } from '../../resources/cells.js';
import { supplierSyncPixel } from './supplierEndpoint.js';
import '../dsp/dsp.css';

const FORMAT_CHECKBOXES = AD_FORMAT_OPTIONS.map((o) => ({ value: o.id, label: o.name }));

export function supplierDefaults(): Record<string, unknown> {
  return {
    status: 1,
    qpsLimit: 'unlimited',
    marginPercent: 20,
    formats: ['video'],
    targetingId: null,
    userSyncUrl: '',
  };
}

/** The endpoint to hand the supplier and a test call to it (TagPreview); copying works in a read-only drawer too. */
function EndpointBox({ uid, formats }: { uid: string; formats: unknown }) {
  const user = useUser();
  return (
    <div style={{ marginBottom: 16 }}>
      <Typography.Text strong style={{ display: 'block', marginBottom: 6 }}>
        Bid endpoint to hand this supplier
      </Typography.Text>
      <TagPreview
        bare
        model={supplierTagPreview(uid, formats, user.config.host)}
        testId="supplier-endpoint"
        copiedMessage="Bid endpoint copied"
      />
    </div>
  );
}

/** Our sync pixel for this supplier: what its sync iframe (or the tenant's pages) loads in a browser. */
function SyncPixel({ uid }: { uid: string }) {
  const user = useUser();
  const url = supplierSyncPixel(user.config.host, uid);
  return (
    <div className="supplier-sync-pixel" style={{ marginTop: 4 }}>
      <Typography.Text strong style={{ display: 'block', marginBottom: 4 }}>
        Sync pixel to hand this supplier
      </Typography.Text>
      <CopyValue value={url} testId="supplier-sync-pixel" />
      <Typography.Paragraph type="secondary" style={{ marginTop: 4, marginBottom: 0 }}>
        A browser that loads it gets our id and is sent on to the user sync URL above. Where the GDPR applies, or the
        browser has opted out, no id is given and nothing is sent.
      </Typography.Paragraph>
    </div>
  );
}

export function SupplierForm({ row }: ResourceFormProps) {
  const label = useHelpLabel('sups');
  return (
    <div className="dsp-form">
      {row?.uid ? (
        <EndpointBox uid={row.uid} formats={row.formats} />
      ) : (
        <Alert
          type="info"
          showIcon
          style={{ marginBottom: 16 }}
          title="The bid endpoint to hand this supplier appears here once it is created."
        />
      )}
      <Row gutter={16}>
        <Col span={16}>
          <NameField placeholder="e.g. Tidewater SSP - CTV supply" />
        </Col>
        <Col span={8}>
          <StatusField />
        </Col>
      </Row>
      <Section title="Traffic">
        <Row gutter={16}>
          <Col span={8}>
            <Form.Item
              name="qpsLimit"
              label={label('qpsLimit', 'QPS limit')}
              extra="Bid requests per second we accept; empty = unlimited"
            >
              <LimitInput data-testid="supplier-qps" />
            </Form.Item>
          </Col>
          <Col span={8}>
            <Form.Item
              name="marginPercent"
              label={label('marginPercent', 'Margin')}
              extra="Kept from what we pay on their bids"
              rules={[{ required: true, message: 'Enter a margin (0 for none)' }]}
            >
              <PercentInput />
            </Form.Item>
          </Col>
          <Col span={8}>
            <Form.Item
              name="formats"
              label={label('formats', 'Formats')}
              rules={[{ type: 'array', min: 1, required: true, message: 'Pick at least one format' }]}
            >
              <Checkbox.Group options={FORMAT_CHECKBOXES} />
            </Form.Item>
          </Col>
        </Row>
        <Form.Item
          name="targetingId"
          label={label('targetingId', 'Targeting')}
          extra="Only bid requests that match it are bid on; none = all traffic"
        >
          <RefSelect kind="targetings" placeholder="None (all traffic)" />
        </Form.Item>
      </Section>
      <Section title="User matching">
        <Form.Item
          name="userSyncUrl"
          normalize={trimmed}
          label={label('userSyncUrl', 'User sync URL')}
          extra={
            <>
              The supplier&apos;s URL that stores our id for a browser: put{' '}
              <Typography.Text code>{'${UID}'}</Typography.Text> where it reads the id (
              <Typography.Text code>{'${GDPR}'}</Typography.Text>,{' '}
              <Typography.Text code>{'${GDPR_CONSENT}'}</Typography.Text>,{' '}
              <Typography.Text code>{'${US_PRIVACY}'}</Typography.Text>,{' '}
              <Typography.Text code>{'${GPP}'}</Typography.Text> and{' '}
              <Typography.Text code>{'${GPP_SID}'}</Typography.Text> are filled too). The supplier then sends that id as
              the bid request&apos;s buyeruid, so frequency caps count one browser from any address. Empty = no
              matching.
            </>
          }
        >
          <Input
            placeholder="https://sync.supplier.example/match?dsp=adplane&uid=${UID}"
            data-testid="supplier-sync-url"
          />
        </Form.Item>
        {row?.uid ? <SyncPixel uid={row.uid} /> : null}
      </Section>
    </div>
  );
}

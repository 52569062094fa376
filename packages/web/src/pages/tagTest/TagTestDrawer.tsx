import { CaretRightOutlined, ExperimentOutlined } from '@ant-design/icons';
import {
  Alert,
  Button,
  Col,
  Collapse,
  Drawer,
  Form,
  Input,
  InputNumber,
  Radio,
  Row,
  Select,
  Spin,
  Tooltip,
  Typography,
} from 'antd';
import { useState } from 'react';
import {
  BROWSER_FAMILIES,
  COUNTRIES,
  DEVICE_TYPES,
  MAX_POD_ADS,
  MAX_POD_SECONDS,
  OPERATING_SYSTEMS,
  TAG_TEST_PATH,
  type TagTestAnswer,
  type TagTestRequest,
  US_STATES,
} from '@adplane/shared';
import { api } from '../../api/client.js';
import { useUser } from '../../auth/authContext.js';
import { errorText } from '../../errors/messages.js';
import { rangeRule } from '../../resources/rangeRule.js';
import { TestResult } from './TestResult.js';
import { PLAYER_SIZE_PRESETS } from './traceText.js';
import './tagTest.css';

/** What is tested: a channel (with its environment, for sensible defaults) or one demand tag. */
export type TagTestSubject =
  | { kind: 'channel'; id: number; name: string; environment?: string }
  | { kind: 'tag'; id: number; name: string };

interface ContextForm {
  country?: string;
  usState?: string;
  device?: string;
  os?: string;
  browser?: string;
  inventory: 'site' | 'app';
  domain?: string;
  appBundle?: string;
  size: string;
  ip?: string;
  ua?: string;
  /** An ad break: how many ads at most, and its length in seconds (empty: one ad). */
  podMaxAds?: number | null;
  podMaxDuration?: number | null;
}

const options = (items: readonly { id: string; name: string }[]) => items.map((i) => ({ value: i.id, label: i.name }));
const COUNTRY_OPTIONS = COUNTRIES.map((c) => ({ value: c.id, label: `${c.name} (${c.id})` }));

/** A context a player of the channel's environment would typically send. */
function defaultContext(subject: TagTestSubject): ContextForm {
  const env = subject.kind === 'channel' ? subject.environment : undefined;
  if (env === 'ctv')
    return {
      country: 'US',
      device: 'smarttv',
      os: 'roku',
      inventory: 'app',
      appBundle: 'com.example.ctv',
      size: '1920x1080',
    };
  if (env === 'app')
    return {
      country: 'US',
      device: 'mobile',
      os: 'android',
      inventory: 'app',
      appBundle: 'com.example.app',
      size: '640x360',
    };
  return {
    country: 'US',
    device: 'desktop',
    os: 'windows',
    browser: 'chrome',
    inventory: 'site',
    domain: 'example.com',
    size: '640x360',
  };
}

/** The form as the API's context: empty fields left out (the server then reads the caller's own connection). */
function contextBody(v: ContextForm): NonNullable<TagTestRequest['context']> {
  const size = PLAYER_SIZE_PRESETS.find((p) => p.id === v.size);
  const text = (s: string | undefined) => (s?.trim() ? s.trim() : undefined);
  return {
    country: v.country || undefined,
    usState: v.country === 'US' ? v.usState || undefined : undefined,
    device: v.device || undefined,
    os: v.os || undefined,
    browser: v.browser || undefined,
    ...(v.inventory === 'app' ? { appBundle: text(v.appBundle) } : { domain: text(v.domain) }),
    width: size?.width,
    height: size?.height,
    ip: text(v.ip),
    ua: text(v.ua),
    podMaxAds: v.podMaxAds ?? undefined,
    podMaxDuration: v.podMaxAds ? (v.podMaxDuration ?? undefined) : undefined,
  };
}

/**
 * "Test this tag": choose a context, run the real decision on the edge, read the trace and watch the
 * ad play with its events arriving. A channel is tested with its demand and the tenant's campaigns; a
 * demand tag alone.
 */
export function TagTestDrawer({
  subject,
  open,
  onClose,
}: {
  subject: TagTestSubject;
  open: boolean;
  onClose: () => void;
}) {
  const [form] = Form.useForm<ContextForm>();
  const [answer, setAnswer] = useState<TagTestAnswer | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [running, setRunning] = useState(false);
  const country = Form.useWatch('country', form);
  const inventory = Form.useWatch('inventory', form);
  const podMaxAds = Form.useWatch('podMaxAds', form);

  async function run() {
    // a refused field shows what is wrong itself
    const values = await form.validateFields().catch(() => null);
    if (!values) return;
    setRunning(true);
    setError(null);
    setAnswer(null);
    try {
      const body: TagTestRequest = {
        ...(subject.kind === 'channel' ? { channelId: subject.id } : { tagId: subject.id }),
        context: contextBody(values),
      };
      setAnswer(await api.post<TagTestAnswer>(TAG_TEST_PATH, body));
    } catch (e) {
      setError(errorText(e));
    } finally {
      setRunning(false);
    }
  }

  return (
    <Drawer
      open={open}
      onClose={onClose}
      size={920}
      destroyOnHidden
      data-testid="tag-test-drawer"
      title={
        <span>
          Test this {subject.kind === 'channel' ? 'channel' : 'demand tag'}:{' '}
          <Typography.Text strong>{subject.name}</Typography.Text>
        </span>
      }
    >
      <Typography.Paragraph type="secondary" className="tag-test-intro">
        {subject.kind === 'channel'
          ? "Runs a real ad request on the edge: this channel's demand tags are called and the tenant's campaigns compete, as for a player."
          : 'Calls this demand tag alone, through a test channel (auction, VAST 4.2, no floor), as the edge would call it.'}{' '}
        Fields left empty come from your own connection. A test is a real decision with real demand calls, but it is not
        counted in reports, and the ad it plays spends no budget.
      </Typography.Paragraph>
      <Form
        form={form}
        layout="vertical"
        initialValues={defaultContext(subject)}
        className="tag-test-form"
        requiredMark={false}
        onFinish={() => void run()}
      >
        <Row gutter={12}>
          <Col span={8}>
            <Form.Item name="country" label="Country">
              <Select
                showSearch={{ optionFilterProp: 'label' }}
                allowClear
                placeholder="From your IP"
                options={COUNTRY_OPTIONS}
                data-testid="tag-test-country"
              />
            </Form.Item>
          </Col>
          <Col span={8}>
            <Form.Item name="usState" label="US state">
              <Select
                showSearch={{ optionFilterProp: 'label' }}
                allowClear
                disabled={country !== 'US'}
                placeholder={country === 'US' ? 'Any' : 'US only'}
                options={options(US_STATES)}
              />
            </Form.Item>
          </Col>
          <Col span={8}>
            <Form.Item name="size" label="Player size">
              <Select
                options={PLAYER_SIZE_PRESETS.map((p) => ({ value: p.id, label: p.label }))}
                data-testid="tag-test-size"
              />
            </Form.Item>
          </Col>
          <Col span={8}>
            <Form.Item name="device" label="Device">
              <Select
                allowClear
                placeholder="From the user agent"
                options={options(DEVICE_TYPES)}
                data-testid="tag-test-device"
              />
            </Form.Item>
          </Col>
          <Col span={8}>
            <Form.Item name="os" label="Operating system">
              <Select
                allowClear
                placeholder="From the user agent"
                options={options(OPERATING_SYSTEMS)}
                data-testid="tag-test-os"
              />
            </Form.Item>
          </Col>
          <Col span={8}>
            <Form.Item name="browser" label="Browser">
              <Select allowClear placeholder="From the user agent" options={options(BROWSER_FAMILIES)} />
            </Form.Item>
          </Col>
          <Col span={8}>
            <Form.Item name="inventory" label="Inventory">
              <Radio.Group
                optionType="button"
                options={[
                  { value: 'site', label: 'Site' },
                  { value: 'app', label: 'App' },
                ]}
              />
            </Form.Item>
          </Col>
          <Col span={16}>
            {inventory === 'app' ? (
              <Form.Item name="appBundle" label="App bundle or store id">
                <Input placeholder="com.example.app" allowClear data-testid="tag-test-bundle" />
              </Form.Item>
            ) : (
              <Form.Item name="domain" label="Site domain">
                <Input placeholder="example.com" allowClear data-testid="tag-test-domain" />
              </Form.Item>
            )}
          </Col>
          <Col span={8}>
            <Form.Item
              name="podMaxAds"
              label="Ads in the break"
              extra="Empty: one ad. More: a CTV ad pod (VAST 3.0 and later)."
              rules={[rangeRule(1, MAX_POD_ADS, 'ads')]}
            >
              <InputNumber
                precision={0}
                placeholder="One ad"
                className="tag-test-number"
                data-testid="tag-test-pod-ads"
              />
            </Form.Item>
          </Col>
          <Col span={8}>
            <Form.Item
              name="podMaxDuration"
              label="Break length"
              extra="Seconds the break may fill."
              rules={[rangeRule(1, MAX_POD_SECONDS, 'seconds')]}
            >
              <InputNumber
                precision={0}
                placeholder="Any"
                suffix="s"
                disabled={!podMaxAds}
                className="tag-test-number"
                data-testid="tag-test-pod-seconds"
              />
            </Form.Item>
          </Col>
        </Row>
        <Collapse
          size="small"
          ghost
          items={[
            {
              key: 'advanced',
              label: 'IP address and user agent',
              children: (
                <Row gutter={12}>
                  <Col span={8}>
                    <Form.Item
                      name="ip"
                      label="IP address"
                      extra="Sent to demand tags; the country above wins for targeting."
                    >
                      <Input placeholder="Your own address" allowClear />
                    </Form.Item>
                  </Col>
                  <Col span={16}>
                    <Form.Item name="ua" label="User agent" extra="Empty: one typical of the chosen OS or device.">
                      <Input placeholder="Mozilla/5.0 (...)" allowClear />
                    </Form.Item>
                  </Col>
                </Row>
              ),
            },
          ]}
        />
        <div className="tag-test-actions">
          <Button
            type="primary"
            htmlType="submit"
            icon={<CaretRightOutlined />}
            loading={running}
            data-testid="tag-test-run"
          >
            Run the test
          </Button>
        </div>
      </Form>
      {error && (
        <Alert type="error" showIcon title="The test could not run" description={error} className="tag-test-error" />
      )}
      {running && !answer && (
        <div className="tag-test-running">
          <Spin />{' '}
          <Typography.Text type="secondary">Asking the demand, under the channel&apos;s deadline…</Typography.Text>
        </div>
      )}
      {answer && <TestResult answer={answer} />}
    </Drawer>
  );
}

/** The row action of the channel and demand tag lists; only the demand account's users and admins see prices and demand. */
export function TagTestButton({ subject }: { subject: TagTestSubject }) {
  const user = useUser();
  const [open, setOpen] = useState(false);
  if (user.type !== 'admin' && user.type !== 'demand') return null;
  return (
    <>
      <Tooltip
        title={
          subject.kind === 'channel'
            ? 'Test this tag: run an ad request and watch the ad play'
            : 'Test this tag alone: call it and watch the ad play'
        }
      >
        <Button
          type="text"
          size="small"
          icon={<ExperimentOutlined />}
          aria-label="test this tag"
          onClick={() => setOpen(true)}
          data-testid={`tag-test-${subject.id}`}
        />
      </Tooltip>
      {open && <TagTestDrawer subject={subject} open={open} onClose={() => setOpen(false)} />}
    </>
  );
}

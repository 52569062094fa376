import { DownloadOutlined, UploadOutlined } from '@ant-design/icons';
import { Alert, Button, Form, Input, Space, Typography, Upload } from 'antd';
import { type ComponentType, useState } from 'react';
import { LIST_ITEM_RULES, listCsv, MAX_LIST_ITEMS, type ListKind, parseListText } from '@adplane/shared';
import { useUser } from '../../auth/authContext.js';
import { notifyLoadError } from '../../errors/notify.js';
import { type ResourceFormProps } from '../../resources/ResourceDrawer.js';
import { HelpLabel, RefSelect, useFieldHelp } from '../../resources/fields.js';
import { type ImportReport, invalidLines, invalidMessage, mergeImport, reportHeadline } from './importList.js';
import { NameStatusRow } from '../../resources/formParts.js';

/** What each kind of list holds, in the words of the people who fill it. */
export const LIST_TEXT: Record<ListKind, { entries: string; one: string; help: string; placeholder: string }> = {
  applists: {
    entries: 'Apps',
    one: 'app',
    help: 'One app per line: a bundle (com.example.app), an App Store id (123456789 or id123456789), a Roku channel id or an Amazon ASIN.',
    placeholder: 'com.example.tv\nid123456789\n151908\nB075NTHVJW',
  },
  publists: {
    entries: 'Publishers',
    one: 'publisher',
    help: 'One publisher per line: a domain (example.com) or a publisher id.',
    placeholder: 'example.com\nnews.example.org\npub-12345',
  },
  crelists: {
    entries: 'Creatives',
    one: 'creative',
    help: 'One entry per line: a creative id or an advertiser domain (brand.com).',
    placeholder: 'cr-1001\nbrand.example.com',
  },
  iplists: {
    entries: 'Addresses',
    one: 'address',
    help: "One entry per line: an IPv4 or IPv6 address (203.0.113.7, 2001:db8::1) or a CIDR range (198.51.100.0/24, 2001:db8::/32). A targeting matches the viewer's address against them.",
    placeholder: '203.0.113.7\n198.51.100.0/24\n2001:db8::/32',
  },
};

const count = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
const entries = (n: number) => count(n, 'entry', 'entries');

function download(name: string, entries: string[]) {
  const url = URL.createObjectURL(new Blob([listCsv(entries)], { type: 'text/csv' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = `${name.trim() || 'list'}.csv`;
  a.click();
  URL.revokeObjectURL(url);
}

/** The drawer of an allow/block list of one kind: name, status, and the entries with a CSV import. */
export function makeListForm(kind: ListKind): ComponentType<ResourceFormProps> {
  const text = LIST_TEXT[kind];
  function ListForm({ form, row, readOnly }: ResourceFormProps) {
    const user = useUser();
    const help = useFieldHelp();
    const [report, setReport] = useState<{ file: string; report: ImportReport } | null>(null);
    const itemsText = (Form.useWatch('items', form) as string | undefined) ?? '';
    const name = (Form.useWatch('name', form) as string | undefined) ?? '';
    const parsed = parseListText(kind, itemsText);

    const importFile = async (file: File) => {
      const merged = mergeImport(kind, String(form.getFieldValue('items') ?? ''), await file.text());
      form.setFieldValue('items', merged.text);
      await form.validateFields(['items']).catch(() => undefined);
      setReport({ file: file.name, report: merged.report });
    };

    return (
      <>
        {user.type === 'admin' && row === null && (
          <Form.Item
            name="tenantId"
            label="Demand account"
            rules={[{ required: true, message: 'Pick the demand account the list belongs to' }]}
          >
            <RefSelect kind="demands" placeholder="Pick a demand account" />
          </Form.Item>
        )}
        <NameStatusRow
          placeholder={`e.g. CTV premium ${text.one}s`}
          message="Give the list a name"
          testId="list-name"
        />
        <Form.Item
          name="items"
          label={<HelpLabel label={text.entries} help={help(`${kind}.items`)} />}
          extra={text.help}
          rules={[
            {
              validator: async (_r, value: string | undefined) => {
                const check = parseListText(kind, value ?? '');
                const problem = invalidMessage(check.invalid);
                if (problem) throw new Error(problem);
                if (check.items.length > MAX_LIST_ITEMS)
                  throw new Error(`A list holds at most ${MAX_LIST_ITEMS.toLocaleString('en-US')} entries`);
              },
            },
          ]}
        >
          <Input.TextArea
            autoSize={{ minRows: 8, maxRows: 18 }}
            placeholder={text.placeholder}
            spellCheck={false}
            style={{ fontFamily: 'ui-monospace, SFMono-Regular, Menlo, monospace', fontSize: 13 }}
            data-testid="list-items"
          />
        </Form.Item>
        <div
          style={{
            display: 'flex',
            alignItems: 'center',
            justifyContent: 'space-between',
            gap: 12,
            marginTop: -8,
            marginBottom: 16,
            flexWrap: 'wrap',
          }}
        >
          <Typography.Text strong data-testid="list-count">
            {entries(parsed.items.length)}
            {parsed.duplicates > 0 && (
              <Typography.Text type="secondary" style={{ fontWeight: 400 }}>
                {' '}
                ({count(parsed.duplicates, 'repeat')} dropped on save)
              </Typography.Text>
            )}
          </Typography.Text>
          <Space>
            <span data-testid="list-import">
              <Upload
                accept=".csv,.txt,text/csv,text/plain"
                showUploadList={false}
                disabled={readOnly}
                beforeUpload={(file) => {
                  importFile(file).catch(notifyLoadError); // the file could not be read
                  return Upload.LIST_IGNORE;
                }}
              >
                <Button icon={<UploadOutlined />} disabled={readOnly}>
                  Import CSV
                </Button>
              </Upload>
            </span>
            <Button
              icon={<DownloadOutlined />}
              disabled={parsed.items.length === 0}
              onClick={() => download(name, parsed.items)}
              data-testid="list-export"
            >
              Download CSV
            </Button>
          </Space>
        </div>
        {report && (
          <Alert
            data-testid="list-import-report"
            type={report.report.invalid.length ? 'warning' : 'success'}
            showIcon
            closable={{ onClose: () => setReport(null) }}
            style={{ marginBottom: 16 }}
            title={`${report.file}: ${reportHeadline(report.report)}`}
            description={
              <>
                {report.report.invalid.length > 0 && (
                  <ul style={{ margin: '4px 0', paddingInlineStart: 18 }}>
                    {invalidLines(report.report.invalid).map((l) => (
                      <li key={l}>{l}</li>
                    ))}
                  </ul>
                )}
                <div>
                  The list now holds {entries(report.report.total)}. Invalid lines were left out; each entry must be{' '}
                  {/^[aeiou]/.test(LIST_ITEM_RULES[kind].label) ? 'an' : 'a'} {LIST_ITEM_RULES[kind].label}. Save to
                  keep the changes.
                </div>
              </>
            }
          />
        )}
      </>
    );
  }
  ListForm.displayName = `ListForm(${kind})`;
  return ListForm;
}

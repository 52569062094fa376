import { DeleteOutlined, PlusOutlined } from '@ant-design/icons';
import {
  Button,
  Form,
  type FormInstance,
  type FormListFieldData,
  Input,
  InputNumber,
  Select,
  Table,
  Tooltip,
} from 'antd';
import { VIDEO_MIMES } from '@adplane/shared';
import { NEW_MEDIA_FILE } from './creativeValues.js';
import { guessVideoMime } from './creativePreview.js';
import { trimmed } from '../../resources/formParts.js';

const MIME_OPTIONS = VIDEO_MIMES.map((m) => ({ value: m, label: m }));
const MAX_FILES = 20;

const atLeastOne = {
  validator: async (_: unknown, files: unknown[] | undefined) => {
    if (!files || files.length === 0) throw new Error('Add at least one media file');
  },
};

/**
 * The media files of a video creative as an editable table: one row per rendition (URL, type,
 * duration, size, bitrate). Typing a URL that ends in .mp4, .webm, .m3u8 ... sets its type.
 */
export function MediaFilesField({ form, readOnly }: { form: FormInstance; readOnly: boolean }) {
  return (
    <Form.List name="mediaFiles" rules={[atLeastOne]}>
      {(fields, { add, remove }, { errors }) => (
        <div data-testid="media-files">
          <Table<FormListFieldData>
            className="dsp-media-table"
            size="small"
            pagination={false}
            rowKey="key"
            dataSource={fields}
            locale={{ emptyText: 'No media files yet' }}
            columns={[
              {
                title: 'URL',
                key: 'url',
                render: (_: unknown, field) => (
                  <Form.Item
                    name={[field.name, 'url']}
                    normalize={trimmed}
                    rules={[
                      { required: true, whitespace: true, message: 'Enter the file URL' },
                      { pattern: /^https?:\/\/\S+$/i, message: 'Must be an http(s) URL' },
                    ]}
                  >
                    <Input
                      placeholder="https://cdn.example.com/spot-30s-1080p.mp4"
                      aria-label={`Media file ${field.name + 1} URL`}
                      onChange={(e) => {
                        const mime = guessVideoMime(e.target.value);
                        if (mime) form.setFieldValue(['mediaFiles', field.name, 'mime'], mime);
                      }}
                    />
                  </Form.Item>
                ),
              },
              {
                title: 'Type',
                key: 'mime',
                width: 190,
                render: (_: unknown, field) => (
                  <Form.Item name={[field.name, 'mime']} rules={[{ required: true, message: 'Pick the type' }]}>
                    <Select
                      options={MIME_OPTIONS}
                      aria-label={`Media file ${field.name + 1} type`}
                      popupMatchSelectWidth={false}
                    />
                  </Form.Item>
                ),
              },
              {
                title: 'Duration (s)',
                key: 'duration',
                width: 100,
                render: (_: unknown, field) => (
                  <Form.Item name={[field.name, 'duration']} rules={[{ required: true, message: 'Required' }]}>
                    <InputNumber<number>
                      precision={0}
                      style={{ width: '100%' }}
                      aria-label={`Media file ${field.name + 1} duration`}
                    />
                  </Form.Item>
                ),
              },
              {
                title: 'Width',
                key: 'width',
                width: 88,
                render: (_: unknown, field) => (
                  <Form.Item name={[field.name, 'width']} rules={[{ required: true, message: 'Required' }]}>
                    <InputNumber<number>
                      precision={0}
                      style={{ width: '100%' }}
                      aria-label={`Media file ${field.name + 1} width`}
                    />
                  </Form.Item>
                ),
              },
              {
                title: 'Height',
                key: 'height',
                width: 88,
                render: (_: unknown, field) => (
                  <Form.Item name={[field.name, 'height']} rules={[{ required: true, message: 'Required' }]}>
                    <InputNumber<number>
                      precision={0}
                      style={{ width: '100%' }}
                      aria-label={`Media file ${field.name + 1} height`}
                    />
                  </Form.Item>
                ),
              },
              {
                title: 'Bitrate (kbps)',
                key: 'bitrate',
                width: 104,
                render: (_: unknown, field) => (
                  <Form.Item name={[field.name, 'bitrate']}>
                    <InputNumber<number>
                      precision={0}
                      style={{ width: '100%' }}
                      aria-label={`Media file ${field.name + 1} bitrate`}
                    />
                  </Form.Item>
                ),
              },
              {
                title: '',
                key: 'remove',
                width: 40,
                render: (_: unknown, field) =>
                  readOnly ? null : (
                    <Tooltip title="Remove this file">
                      <Button
                        type="text"
                        danger
                        icon={<DeleteOutlined />}
                        aria-label={`Remove media file ${field.name + 1}`}
                        onClick={() => remove(field.name)}
                      />
                    </Tooltip>
                  ),
              },
            ]}
          />
          <Form.ErrorList errors={errors} />
          {!readOnly && (
            <Button
              type="dashed"
              icon={<PlusOutlined />}
              style={{ marginTop: 8 }}
              disabled={fields.length >= MAX_FILES}
              onClick={() => add({ ...NEW_MEDIA_FILE })}
              data-testid="media-file-add"
            >
              Add media file
            </Button>
          )}
        </div>
      )}
    </Form.List>
  );
}

import { ExportOutlined } from '@ant-design/icons';
import { Alert, Typography } from 'antd';
import { CREATIVE_PREVIEW_MESSAGE, CREATIVE_PREVIEW_PATH } from '@adplane/shared';
import { type CreativePreviewModel } from './creativePreview.js';

/**
 * The drawer's preview of a creative. The media element itself carries `data-testid="creative-preview"`
 * (the <video>, <img> or <iframe>), or the VAST link.
 */
export function CreativePreview({ model }: { model: CreativePreviewModel }) {
  switch (model.kind) {
    case 'video':
      return (
        <div>
          <video
            key={model.src}
            controls
            preload="metadata"
            playsInline
            src={model.src}
            style={{
              width: '100%',
              maxWidth: 480,
              aspectRatio: model.width && model.height ? `${model.width} / ${model.height}` : '16 / 9',
            }}
            data-testid="creative-preview"
          />
          <Typography.Text type="secondary" className="dsp-mono" style={{ display: 'block', marginTop: 6 }}>
            {model.mime} · {model.src}
          </Typography.Text>
        </div>
      );
    case 'unplayable':
      return (
        <Alert
          type="warning"
          showIcon
          title="No media file plays in a browser"
          description={
            <>
              Browsers play MP4 and WebM files; HLS, DASH, Ogg and 3GP need a player. Open a file to check it:
              <ul style={{ margin: '4px 0 0', paddingLeft: 18 }}>
                {model.urls.map((u) => (
                  <li key={u}>
                    <Typography.Link href={u} target="_blank" rel="noopener noreferrer" className="dsp-mono">
                      {u}
                    </Typography.Link>
                  </li>
                ))}
              </ul>
            </>
          }
        />
      );
    case 'vast':
      return (
        <Typography.Paragraph style={{ marginBottom: 0 }}>
          Third-party VAST is not loaded here (the console does not call other ad servers). Open the tag to check what
          it returns:
          <br />
          <Typography.Link
            href={model.url}
            target="_blank"
            rel="noopener noreferrer"
            className="dsp-mono"
            data-testid="creative-preview"
          >
            {model.url} <ExportOutlined />
          </Typography.Link>
        </Typography.Paragraph>
      );
    case 'image':
      return (
        <img
          src={model.src}
          alt="Display creative"
          width={model.width ?? undefined}
          height={model.height ?? undefined}
          style={{ maxWidth: '100%', height: 'auto' }}
          data-testid="creative-preview"
        />
      );
    case 'html':
      return <HtmlCreativeFrame html={model.html} width={model.width} height={model.height} />;
    case 'none':
      return <Typography.Text type="secondary">{model.message}</Typography.Text>;
  }
}

/**
 * An HTML creative runs in the server's sandboxed preview page (its own CSP, an opaque origin), which
 * gets the markup by message once loaded: never in a srcdoc frame, which would share the console's CSP.
 * Popups a click opens stay sandboxed (no allow-popups-to-escape-sandbox).
 */
function HtmlCreativeFrame({ html, width, height }: { html: string; width: number; height: number }) {
  return (
    <iframe
      key={html}
      title="HTML creative preview"
      src={CREATIVE_PREVIEW_PATH}
      sandbox="allow-scripts allow-popups"
      width={width}
      height={height}
      data-testid="creative-preview"
      onLoad={(event) => event.currentTarget.contentWindow?.postMessage({ type: CREATIVE_PREVIEW_MESSAGE, html }, '*')}
    />
  );
}

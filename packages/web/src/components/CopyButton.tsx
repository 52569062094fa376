import { CheckOutlined, CopyOutlined } from '@ant-design/icons';
import { App, Button } from 'antd';
import { useEffect, useState } from 'react';
import { copyText } from '../resources/clipboard.js';

interface CopyButtonProps {
  /** What goes on the clipboard. */
  text: string;
  /** What the toast says once copied. */
  copiedMessage?: string;
  testId?: string;
}

/**
 * The console's Copy button beside a text to paste elsewhere (a tag, an ads.txt line): it says
 * "Copied" for two seconds once it worked, and what to do when the browser refuses.
 */
export function CopyButton({ text, copiedMessage = 'Copied: it is in your clipboard', testId }: CopyButtonProps) {
  const { message } = App.useApp();
  const [copied, setCopied] = useState(false);

  useEffect(() => {
    if (!copied) return;
    const timer = setTimeout(() => setCopied(false), 2000);
    return () => clearTimeout(timer);
  }, [copied]);

  const copy = async () => {
    if (await copyText(text, message, copiedMessage)) setCopied(true);
  };

  return (
    <Button
      size="small"
      type={copied ? 'default' : 'primary'}
      icon={copied ? <CheckOutlined /> : <CopyOutlined />}
      onClick={() => void copy()}
      data-testid={testId}
    >
      {copied ? 'Copied' : 'Copy'}
    </Button>
  );
}

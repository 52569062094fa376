import { type MessageInstance } from 'antd/es/message/interface';

/**
 * Put text on the clipboard; false when the browser refuses. The Clipboard API needs a secure page
 * (https or localhost); consoles served over plain http on an internal host fall back to a selection
 * copy, which browsers still allow inside a click.
 */
async function copyToClipboard(text: string): Promise<boolean> {
  try {
    if (navigator.clipboard) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // fall through to the selection copy
  }
  return selectionCopy(text);
}

function selectionCopy(text: string): boolean {
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.style.position = 'fixed';
  area.style.opacity = '0';
  document.body.appendChild(area);
  area.select();
  try {
    return typeof document.execCommand === 'function' && document.execCommand('copy');
  } catch {
    return false;
  } finally {
    area.remove();
  }
}

/**
 * Copy text for pasting elsewhere (a tag into a player, an app key into an SDK) and say so; when the
 * browser refuses, say what to do instead.
 */
export async function copyText(text: string, message: MessageInstance, what = 'Copied'): Promise<boolean> {
  if (await copyToClipboard(text)) {
    message.success(what);
    return true;
  }
  message.error('The browser did not allow copying: select the text and copy it with Ctrl+C');
  return false;
}

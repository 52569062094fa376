import { type MessageInstance } from 'antd/es/message/interface';

/**
 * Copy text for pasting elsewhere (a tag into a player, an app key into an SDK) and say so. Browsers
 * refuse the clipboard outside secure contexts or without permission: the message then says what to
 * do instead.
 */
export async function copyText(text: string, message: MessageInstance, what = 'Copied'): Promise<boolean> {
  try {
    if (!navigator.clipboard) throw new Error('no clipboard');
    await navigator.clipboard.writeText(text);
    message.success(what);
    return true;
  } catch {
    message.error('The browser did not allow copying: select the text and copy it with Ctrl+C');
    return false;
  }
}

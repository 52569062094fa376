import { type EdgeRequest, type EdgeResponse } from '../../../http/edgeHttp.js';
import { corsHeaders } from '../cors.js';
import { sendMaybeGzipped } from '../../ortb/compression.js';

/** An answer with CORS, gzipped for a caller that accepts it (a browser does). */
export function send(
  req: EdgeRequest,
  res: EdgeResponse,
  status: number,
  type: string,
  body: string,
  extra: Record<string, string> = {},
): void {
  if (res.headersSent) return;
  sendMaybeGzipped(
    req,
    res,
    status,
    { 'content-type': type, 'cache-control': 'no-store', ...corsHeaders(req), ...extra },
    body,
  );
}

import { createHash } from 'node:crypto';
import { createWriteStream, mkdirSync, rmSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import path from 'node:path';
import { ApiError } from '../api-error';

/**
 * A file upload as pveproxy receives it (pve-http-server's AnyEvent.pm, file_upload_multipart): a
 * `multipart/form-data` body whose parts come in a fixed order: `content`, then `checksum-algorithm` and
 * `checksum` if given, then the file itself as the part named `filename` (its `filename="…"` is the name
 * to create). The file's bytes go to a temporary file (`pveupload-<md5>`) as they arrive, never into
 * memory; the upload method then reads that file (`tmpfilename`). A body in another order or cut short
 * fails "upload failed", a form part other than form-data "wrong Content-Disposition …", all with 500 as
 * pveproxy answers them.
 */
export interface ReceivedUpload {
  /** The form fields pveproxy extracted (content, checksum-algorithm, checksum, filename). */
  params: Record<string, string>;
  /** Where the file's bytes are. */
  tmpfile: string;
  size: number;
}

let sequence = 0;

const FIELDS = ['content', 'checksum-algorithm', 'checksum'];

/** The boundary of a `multipart/form-data` content type, or an error as pveproxy words it. */
export function uploadBoundary(contentType: string | undefined): string {
  const [type, ...params] = (contentType ?? '').split(/\s*[;,]\s*/);
  const boundary = params.map((p) => /^\s*boundary\s*=\s*(\S+?)\s*$/.exec(p)?.[1]).find(Boolean);
  if (!boundary || type !== 'multipart/form-data')
    throw new ApiError(500, `upload 'Content-Type '${contentType ?? ''}' not implemented`);
  return boundary; // taken as written, quotes and all, as pveproxy's parse_content_type does
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const NL = '\\r?\\n';

function assertFormData(disposition: string): void {
  if (disposition !== 'form-data')
    throw new ApiError(500, `wrong Content-Disposition '${disposition}' in multipart, expected 'form-data'`);
}

/**
 * Phase 1 on the bytes received so far (as latin1 text, one character a byte): pveproxy's regexes in
 * its order, each anchored at the start of what is left. Undefined until the file part's headers are in.
 */
function parseHead(text: string, boundary: string): { params: Record<string, string>; dataAt: number } | undefined {
  const delim = `--${escape(boundary)}${NL}`;
  const first = new RegExp(`^[\\s\\S]*?(${delim})`).exec(text);
  if (!first) return undefined;
  let buf = text.slice(first[0].length - first[1]!.length);
  const params: Record<string, string> = {};
  const untilData = new RegExp(`^[\\s\\S]*?(?:${NL}){2}`);
  for (const name of FIELDS) {
    const m = new RegExp(
      `^${delim}[\\s\\S]*?Content-Disposition: ([\\s\\S]*?); name="${escape(name)}"([\\s\\S]*?${delim})`,
    ).exec(buf);
    if (!m) continue;
    assertFormData(m[1]!);
    buf = m[2]! + buf.slice(m[0].length);
    buf = buf.replace(untilData, '');
    const value = new RegExp(`^([\\s\\S]*?)(${delim})`).exec(buf);
    params[name] = (value?.[1] ?? '').trim();
    buf = buf.slice(value?.[1]!.length ?? 0);
  }
  const file = new RegExp(`^${delim}Content-Disposition: ([\\s\\S]*?); name="([\\s\\S]*?)"; filename="([^"]+)"`).exec(
    buf,
  );
  if (!file) return undefined;
  assertFormData(file[1]!);
  if (file[2] !== 'filename')
    throw new ApiError(500, `wrong field name '${file[2]}' for file upload, expected 'filename'`);
  params.filename = file[3]!.trim();
  const headers = untilData.exec(buf.slice(file[0].length));
  if (!headers) return undefined;
  return { params, dataAt: text.length - (buf.length - file[0].length - headers[0].length) };
}

/** Streams a multipart upload into `<tmpDir>/pveupload-<md5>`. */
export async function receiveUpload(req: IncomingMessage, tmpDir: string): Promise<ReceivedUpload> {
  const boundary = uploadBoundary(req.headers['content-type']);
  if (!req.headers['content-length']) throw new ApiError(500, 'upload without content length header not supported');
  mkdirSync(tmpDir, { recursive: true });
  const tmpfile = path.join(
    tmpDir,
    `pveupload-${createHash('md5').update(`${++sequence}${Date.now()}${process.pid}`).digest('hex')}`,
  );
  const out = createWriteStream(tmpfile, { flags: 'wx', mode: 0o600 });
  const close = `--${boundary}--`;
  const keep = Buffer.byteLength(close) + 8;
  let head = Buffer.alloc(0);
  let tail = Buffer.alloc(0);
  let parsed: { params: Record<string, string>; dataAt: number } | undefined;
  let size = 0;
  const write = (chunk: Buffer) => {
    if (chunk.length === 0) return;
    size += chunk.length;
    out.write(chunk);
  };
  // A refused body is still read to its end (leaving the loop early would destroy the request, and the
  // socket the answer goes out on).
  let refused: unknown;
  try {
    for await (const chunk of req as AsyncIterable<Buffer>) {
      if (refused) continue;
      try {
        if (!parsed) {
          head = Buffer.concat([head, chunk]);
          parsed = parseHead(head.toString('latin1'), boundary);
          if (!parsed) continue;
          tail = head.subarray(parsed.dataAt);
        } else tail = Buffer.concat([tail, chunk]);
        if (tail.length > 2 * keep) {
          write(tail.subarray(0, tail.length - keep));
          tail = tail.subarray(tail.length - keep);
        }
      } catch (err) {
        refused = err;
      }
    }
    if (refused) throw refused;
    const end = tail.lastIndexOf(close, undefined, 'latin1');
    if (!parsed || end < 0) throw new ApiError(500, 'upload failed');
    const lineEnd =
      tail
        .subarray(0, end)
        .toString('latin1')
        .match(/\r?\n$/)?.[0].length ?? 0;
    write(tail.subarray(0, end - lineEnd));
    await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
    return { params: parsed.params, tmpfile, size };
  } catch (err) {
    out.destroy();
    rmSync(tmpfile, { force: true });
    throw err;
  }
}
